// Package kubernetes holds benchtop's agent manifests for Kubernetes (an
// Indexed Job of agents and the headless Service that names its pods) and
// their tests: the manifests decoded into the official API types, and
// each pod judged against the Pod Security "restricted" profile by
// k8s.io/pod-security-admission. It is a Go module of its own
// (benchtop/deploy/kubernetes), so that benchtop's module requires none
// of the Kubernetes libraries: run (cd deploy/kubernetes && go test ./...).
package kubernetes
