// Package kubernetes holds benchtop's agent manifests for Kubernetes (an
// Indexed Job of agents and the headless Service that names its pods) and
// the test that decodes them into the official API types.
package kubernetes
