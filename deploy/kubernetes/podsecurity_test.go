package kubernetes

import (
	"os"
	"path/filepath"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"
)

// Every manifest of this folder that holds a pod passes the Pod Security
// "restricted" profile, as the Kubernetes project's own admission checks
// (k8s.io/pod-security-admission's policy package, the code of the
// PodSecurity admission plugin) judge it at the latest policy version:
// a namespace labelled pod-security.kubernetes.io/enforce=restricted
// admits it. A file of a kind this test does not know fails it, so that
// no new manifest escapes the check.
func TestPodSecurityRestricted(t *testing.T) {
	t.Parallel()
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	restricted := api.LevelVersion{Level: api.LevelRestricted, Version: api.LatestVersion()}
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests here (%v)", err)
	}
	pods := 0
	for _, file := range files {
		meta, spec := podOf(t, file)
		if spec == nil {
			continue
		}
		pods++
		res := policy.AggregateCheckResults(eval.EvaluatePod(restricted, meta, spec))
		if !res.Allowed {
			t.Errorf("%s: violates PodSecurity \"restricted:latest\": %s", file, res.ForbiddenDetail())
		}
	}
	if pods == 0 {
		t.Fatalf("none of %v holds a pod", files)
	}
}

// podOf is the pod template of the manifest in file, nil for a kind that
// holds none (a Service).
func podOf(t *testing.T, file string) (*metav1.ObjectMeta, *corev1.PodSpec) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(b, &tm); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 Job":
		var j batchv1.Job
		decode(t, file, &j)
		return &j.Spec.Template.ObjectMeta, &j.Spec.Template.Spec
	case "v1 Pod":
		var p corev1.Pod
		decode(t, file, &p)
		return &p.ObjectMeta, &p.Spec
	case "v1 Service":
		return nil, nil
	}
	t.Fatalf("%s: kind %s %s: teach TestPodSecurityRestricted where its pod is", file, tm.APIVersion, tm.Kind)
	return nil, nil
}
