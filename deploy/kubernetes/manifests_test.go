package kubernetes

import (
	"net"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func decode(t *testing.T, file string, into any) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Strict: a misspelt field is an error, not a field the cluster drops.
	if err := yaml.UnmarshalStrict(b, into); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// flagValue is the value of --name in args (--name VALUE or --name=VALUE).
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

func TestAgentManifests(t *testing.T) {
	var job batchv1.Job
	var svc corev1.Service
	decode(t, "agents-job.yaml", &job)
	decode(t, "agents-service.yaml", &svc)

	if job.Kind != "Job" || job.APIVersion != "batch/v1" || svc.Kind != "Service" || svc.APIVersion != "v1" {
		t.Fatalf("kinds: %s %s, %s %s", job.APIVersion, job.Kind, svc.APIVersion, svc.Kind)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed (one pod per index, JOB_COMPLETION_INDEX)", s.CompletionMode)
	}
	if s.Parallelism == nil || s.Completions == nil || *s.Parallelism != *s.Completions || *s.Completions < 1 {
		t.Errorf("parallelism %v, completions %v: want them equal, so that every agent runs at once", s.Parallelism, s.Completions)
	}
	pod := s.Template.Spec
	if pod.Subdomain != svc.Name {
		t.Errorf("subdomain %q, want the headless Service %q (pod DNS names)", pod.Subdomain, svc.Name)
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("service clusterIP %q, want None (headless)", svc.Spec.ClusterIP)
	}
	for k, v := range svc.Spec.Selector {
		if s.Template.Labels[k] != v {
			t.Errorf("service selects %s=%s, the pods are labelled %v", k, v, s.Template.Labels)
		}
	}
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never (an agent serves one run)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want the agent alone", len(pod.Containers))
	}
	c := pod.Containers[0]
	args := append(append([]string(nil), c.Command...), c.Args...)
	if len(args) < 2 || path.Base(args[0]) != "benchtop" || args[1] != "agent" {
		t.Fatalf("command %v, want benchtop agent ...", args)
	}
	listen, ok := flagValue(args, "--listen")
	if !ok {
		t.Fatalf("command %v has no --listen", args)
	}
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		t.Fatalf("--listen %q: %v", listen, err)
	}
	if !slices.Contains(args, "--once") {
		t.Errorf("command %v: without --once the pods never complete", args)
	}
	var cport int32
	for _, p := range c.Ports {
		if p.Name == "agent" {
			cport = p.ContainerPort
		}
	}
	if strconv.Itoa(int(cport)) != port {
		t.Errorf("container port %d, the agent listens on %s", cport, port)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != cport || svc.Spec.Ports[0].TargetPort.String() != "agent" {
		t.Errorf("service ports %+v, want %d to the agent port", svc.Spec.Ports, cport)
	}
	// The token: a file from a Secret, never an argument or a literal.
	tokenFile, ok := flagValue(args, "--token-file")
	if !ok {
		t.Fatalf("command %v: no --token-file (an agent without a token listens on loopback only)", args)
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--token=") || a == "--token" {
			t.Errorf("a token on the command line: %v", args)
		}
	}
	for _, e := range c.Env {
		if e.Name == "BENCHTOP_TOKEN" && e.Value != "" {
			t.Errorf("BENCHTOP_TOKEN given as a literal")
		}
	}
	var mount *corev1.VolumeMount
	for i, m := range c.VolumeMounts {
		if strings.HasPrefix(tokenFile, strings.TrimSuffix(m.MountPath, "/")+"/") {
			mount = &c.VolumeMounts[i]
		}
	}
	if mount == nil || !mount.ReadOnly {
		t.Fatalf("--token-file %s is not in a read-only volume mount (%+v)", tokenFile, c.VolumeMounts)
	}
	var secret *corev1.SecretVolumeSource
	for _, v := range pod.Volumes {
		if v.Name == mount.Name {
			secret = v.Secret
		}
	}
	if secret == nil || secret.SecretName == "" {
		t.Fatalf("volume %s is not a Secret", mount.Name)
	}
	rel := strings.TrimPrefix(tokenFile, strings.TrimSuffix(mount.MountPath, "/")+"/")
	found := false
	for _, it := range secret.Items {
		found = found || it.Path == rel
	}
	if len(secret.Items) > 0 && !found {
		t.Errorf("secret %s has no item at %s", secret.SecretName, rel)
	}
	if sc := c.SecurityContext; sc != nil && sc.RunAsUser != nil && *sc.RunAsUser != 0 {
		// A non-root agent reads the secret file through its group.
		mode := int32(0o644)
		if secret.DefaultMode != nil {
			mode = *secret.DefaultMode
		}
		if mode&0o004 == 0 && (pod.SecurityContext == nil || pod.SecurityContext.FSGroup == nil || mode&0o040 == 0) {
			t.Errorf("user %d cannot read the token file (mode %o, no fsGroup)", *sc.RunAsUser, mode)
		}
	}
}
