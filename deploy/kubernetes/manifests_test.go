package kubernetes

import (
	"net"
	"os"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// The Job manifests: agents-job.yaml, and the same Job with one agent per
// node required (onePerNode), applied in its place.
const (
	jobFile     = "agents-job.yaml"
	onePerNode  = "agents-job-one-per-node.yaml"
	serviceFile = "agents-service.yaml"
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
	t.Parallel()
	for _, file := range []string{jobFile, onePerNode} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			checkAgentJob(t, file)
		})
	}
}

func checkAgentJob(t *testing.T, file string) {
	var job batchv1.Job
	var svc corev1.Service
	decode(t, file, &job)
	decode(t, serviceFile, &svc)

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
	checkDeadlines(t, job, args)
	checkImage(t, c)
	checkResources(t, c)
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("container %s: want readOnlyRootFilesystem (an emptyDir for what it writes)", c.Name)
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
	checkToken(t, pod, c, args)
}

// checkDeadlines: an agent that hears from no coordinator ends
// (--idle-timeout), and so does the Job (activeDeadlineSeconds), the
// former first.
func checkDeadlines(t *testing.T, job batchv1.Job, args []string) {
	t.Helper()
	ads := job.Spec.ActiveDeadlineSeconds
	if ads == nil || *ads <= 0 {
		t.Errorf("no activeDeadlineSeconds: a Job whose agents never end holds their CPUs for good")
	}
	v, ok := flagValue(args, "--idle-timeout")
	if !ok {
		t.Errorf("command %v: no --idle-timeout (an agent no coordinator reaches waits for ever)", args)
		return
	}
	idle, err := time.ParseDuration(v)
	if err != nil || idle <= 0 {
		t.Errorf("--idle-timeout %q: want a positive duration", v)
		return
	}
	if ads != nil && idle >= time.Duration(*ads)*time.Second {
		t.Errorf("--idle-timeout %s is not shorter than activeDeadlineSeconds %d: the Job's deadline would end idle agents first, unexplained", idle, *ads)
	}
}

// checkImage: the image is tagged (or pinned by digest), never :latest.
func checkImage(t *testing.T, c corev1.Container) {
	t.Helper()
	img := c.Image
	if strings.Contains(img, "@sha256:") {
		return
	}
	name := img[strings.LastIndex(img, "/")+1:]
	_, tag, ok := strings.Cut(name, ":")
	if !ok || tag == "" || tag == "latest" {
		t.Errorf("image %q: want a version tag (benchtop:v1.2.3) or a digest, not :latest", img)
	}
}

// checkResources: requests and limits for CPU and memory.
func checkResources(t *testing.T, c corev1.Container) {
	t.Helper()
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		switch {
		case !okReq || req.IsZero():
			t.Errorf("container %s: no %s request", c.Name, r)
		case !okLim || lim.IsZero():
			t.Errorf("container %s: no %s limit", c.Name, r)
		case lim.Cmp(req) < 0:
			t.Errorf("container %s: %s limit %s below its request %s", c.Name, r, lim.String(), req.String())
		}
	}
}

// checkToken: the token is a file from a Secret the agent's user can
// read, never an argument or a literal.
func checkToken(t *testing.T, pod corev1.PodSpec, c corev1.Container, args []string) {
	t.Helper()
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
	if uid := runAsUser(pod, c); uid != nil && *uid != 0 {
		// A non-root agent reads the secret file through its group.
		mode := int32(0o644)
		if secret.DefaultMode != nil {
			mode = *secret.DefaultMode
		}
		if mode&0o004 == 0 && (pod.SecurityContext == nil || pod.SecurityContext.FSGroup == nil || mode&0o040 == 0) {
			t.Errorf("user %d cannot read the token file (mode %o, no fsGroup)", *uid, mode)
		}
	}
}

// runAsUser is the container's user: its own securityContext's, else
// the pod's.
func runAsUser(pod corev1.PodSpec, c corev1.Container) *int64 {
	if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
		return c.SecurityContext.RunAsUser
	}
	if pod.SecurityContext != nil {
		return pod.SecurityContext.RunAsUser
	}
	return nil
}

// The Dockerfile's USER is the user the manifests run as, so that the
// image runs as that non-root user outside Kubernetes too.
func TestDockerfileUser(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	user := ""
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) == 2 && strings.EqualFold(f[0], "USER") {
			user = f[1] // the last stage's last USER wins
		}
	}
	var job batchv1.Job
	decode(t, jobFile, &job)
	pod := job.Spec.Template.Spec
	uid := runAsUser(pod, pod.Containers[0])
	if uid == nil || *uid == 0 {
		t.Fatalf("the Job runs as no numeric non-root user (runAsUser %v)", uid)
	}
	u, g, _ := strings.Cut(user, ":")
	if u != strconv.FormatInt(*uid, 10) {
		t.Errorf("Dockerfile USER %q, the Job's runAsUser %d", user, *uid)
	}
	if sc := pod.SecurityContext; g != "" && sc != nil && sc.RunAsGroup != nil && g != strconv.FormatInt(*sc.RunAsGroup, 10) {
		t.Errorf("Dockerfile USER %q, the Job's runAsGroup %d", user, *sc.RunAsGroup)
	}
}

// The one-per-node Job is agents-job.yaml with the anti-affinity
// required, and nothing else changed: the two cannot drift apart.
func TestOnePerNodeIsTheJobWithRequiredAntiAffinity(t *testing.T) {
	t.Parallel()
	var base, strict batchv1.Job
	decode(t, jobFile, &base)
	decode(t, onePerNode, &strict)
	aa := func(j *batchv1.Job) *corev1.PodAntiAffinity {
		if a := j.Spec.Template.Spec.Affinity; a != nil {
			return a.PodAntiAffinity
		}
		return nil
	}
	req := aa(&strict)
	if req == nil || len(req.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("%s: want one required pod anti-affinity term, got %+v", onePerNode, req)
	}
	term := req.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != corev1.LabelHostname {
		t.Errorf("%s: topologyKey %q, want %s (one agent per node)", onePerNode, term.TopologyKey, corev1.LabelHostname)
	}
	sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(strict.Spec.Template.Labels)) {
		t.Errorf("%s: the anti-affinity's selector %v does not select the agents (labels %v)", onePerNode, term.LabelSelector, strict.Spec.Template.Labels)
	}
	if p := aa(&base); p == nil || len(p.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		t.Errorf("%s: want a preferred pod anti-affinity (one agent per node when the cluster can)", jobFile)
	}
	strict.Spec.Template.Spec.Affinity = base.Spec.Template.Spec.Affinity
	if !reflect.DeepEqual(base, strict) {
		t.Errorf("%s differs from %s in more than the anti-affinity: change both", onePerNode, jobFile)
	}
}
