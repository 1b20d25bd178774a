package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"benchtop/internal/infile/infiletest"
)

// Every input given as a FIFO that nothing writes to: one line naming
// the flag (or the input) and exit status 2, at once. Before, each
// blocked in open(2) for good, deaf to SIGINT and SIGTERM.
func TestInputFIFOWithNoWriter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args func(fifo string) []string
		want string
	}{
		{"-P", func(f string) []string { return []string{"run", "memory", "-P", f} }, "-P " + "%s: cannot read the property file: a FIFO with no writer"},
		{"--baseline", func(f string) []string { return []string{"run", "memory", "--baseline", f} }, "--baseline %s: a FIFO with no writer"},
		{"--agents-file", func(f string) []string { return []string{"run", "memory", "--agents-file", f} }, "--agents-file %s: a FIFO with no writer"},
		{"--token-file", func(f string) []string {
			return []string{"run", "memory", "--agents", "127.0.0.1:9", "--token-file", f}
		}, "--token-file %s: a FIFO with no writer"},
		{"report", func(f string) []string { return []string{"report", f, "-o", filepath.Join(filepath.Dir(f), "r.html")} }, "report: %s: a FIFO with no writer"},
		{"verdict", func(f string) []string { return []string{"verdict", f} }, "verdict: %s: a FIFO with no writer"},
		{"dynamodb.awsCredentialsFile", func(f string) []string {
			return []string{"run", "dynamodb", "-p", "dynamodb.awsCredentialsFile=" + f, "-p", "dynamodb.endpoint=http://127.0.0.1:9"}
		}, "dynamodb.awsCredentialsFile: \"****\" is not allowed (allowed: a readable Java properties file with accessKey and secretKey; this one is a FIFO with no writer)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fifo := infiletest.FIFO(t, "in")
			var out, errb bytes.Buffer
			code := make(chan int, 1)
			go func() { code <- run(c.args(fifo), &out, &errb) }()
			var got int
			select {
			case got = <-code:
			case <-time.After(30 * time.Second):
				// A hang detector: open a writer so that the blocked
				// command goes on and the test can end.
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				<-code
				t.Fatalf("%s: still blocked on the FIFO 30 s on", c.name)
			}
			msg := errb.String()
			if got != exitUsage || strings.Count(msg, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q: want %d and one line", got, msg, exitUsage)
			}
			want := strings.Replace(c.want, "%s", fifo, 1)
			if !strings.Contains(msg, want) {
				t.Errorf("stderr %q does not say %q", msg, want)
			}
		})
	}
}

// A FIFO with a writer (as a shell's <(cat workloads/workloada) is) is
// read as a file is: the run takes its properties.
func TestInputFIFOWithAWriterIsRead(t *testing.T) {
	t.Parallel()
	fifo := infiletest.FIFO(t, "workload")
	props := "recordcount=20\noperationcount=30\nreadproportion=1\nupdateproportion=0\n"
	w := infiletest.Writer(t, fifo)
	go func() {
		w.WriteString(props)
		w.Close()
	}()
	var out, errb bytes.Buffer
	code := run([]string{"run", "memory", "-P", fifo, "--headless"}, &out, &errb)
	if code != exitOK || !strings.Contains(out.String(), "[READ], Operations, 30") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}
