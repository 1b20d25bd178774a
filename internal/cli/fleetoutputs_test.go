package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"benchtop/fleet"
)

// inProcessAgents serves n agents in this process on loopback, the
// fleet's token theirs; it returns their addresses as --agents takes
// them.
func inProcessAgents(t *testing.T, n int) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var addrs []string
	for range n {
		ln, err := fleet.Listen("127.0.0.1:0", fleetToken, nil)
		if err != nil {
			t.Fatal(err)
		}
		go fleet.ServeListener(ctx, ln, fleet.AgentConfig{Token: fleetToken, Version: "test"})
		addrs = append(addrs, ln.Addr().String())
	}
	return strings.Join(addrs, ",")
}

// coordinateInProcess runs a fleet run's coordinator in this process,
// the fleet's token in a --token-file (not in BENCHTOP_TOKEN: t.Setenv
// would keep the test from running in parallel).
func coordinateInProcess(t *testing.T, agents string, args ...string) (string, string, int) {
	t.Helper()
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte(fleetToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	all := append([]string{"run", "memory", "--headless", "--agents", agents, "--token-file", token, "-p", "recordcount=200", "-p", "operationcount=3000",
		"-p", "readproportion=0.5", "-p", "updateproportion=0.5"}, args...)
	code := run(all, &out, &errb)
	return out.String(), errb.String(), code
}

// Issue 25: YCSB's exporter file and HDR files are written by the
// coordinator from the merged figures, as one process writes them (they
// were silently dropped).
func TestFleetWritesYCSBOutputs(t *testing.T) {
	t.Parallel()
	agents := inProcessAgents(t, 2)
	dir := t.TempDir()
	export := filepath.Join(dir, "export.json")
	out, errOut, code := coordinateInProcess(t, agents, "-p", "exportfile="+export, "-p", "exporter=JSONArrayMeasurementsExporter",
		"-p", "hdrhistogram.fileoutput=true", "-p", "hdrhistogram.output.path="+dir+"/run-")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	b, err := os.ReadFile(export)
	if err != nil {
		t.Fatalf("exportfile: %v\n%s", err, errOut)
	}
	var rows []struct {
		Metric, Measurement string
		Value               any
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("exportfile is not YCSB's JSON array: %v", err)
	}
	ops := map[string]int64{}
	for _, r := range rows {
		if r.Measurement == "Operations" {
			if v, ok := r.Value.(float64); ok {
				ops[r.Metric] = int64(v)
			}
		}
	}
	if ops["READ"]+ops["UPDATE"] != 3000 {
		t.Errorf("exportfile: READ %d + UPDATE %d operations, want the fleet's 3000", ops["READ"], ops["UPDATE"])
	}
	if got := ycsbValue(t, out, "READ", "Operations"); got != ops["READ"] {
		t.Errorf("the text report's READ operations %d, the exportfile's %d", got, ops["READ"])
	}
	for _, op := range []string{"READ", "UPDATE"} {
		path := filepath.Join(dir, "run-"+op+".hdr")
		h := hlogMerge(t, path, func(string) bool { return true })
		if h == nil || h.TotalCount() != ops[op] {
			t.Errorf("%s: the HDR file holds %v values, want the merged %d", filepath.Base(path), h, ops[op])
		}
		if !strings.Contains(errOut, "wrote "+path) {
			t.Errorf("no 'wrote %s' line:\n%s", path, errOut)
		}
	}
}

// Issue 25: what a process's report does with measurementtype (timeseries
// units, histogram buckets) the coordinator's report does too; a crossed
// --threshold gives 99 as in one process.
func TestFleetReportHonoursMeasurementType(t *testing.T) {
	t.Parallel()
	agents := inProcessAgents(t, 2)
	out, errOut, code := coordinateInProcess(t, agents, "-p", "measurementtype=timeseries", "-p", "timeseries.granularity=1000")
	if code != exitOK {
		t.Fatalf("timeseries: exit %d\n%s", code, errOut)
	}
	if !regexp.MustCompile(`(?m)^\[READ\], 0, [0-9.]+$`).MatchString(out) {
		t.Errorf("timeseries: no [READ], 0, <latency> unit line in the report:\n%s", out)
	}
	out, errOut, code = coordinateInProcess(t, agents, "-p", "measurementtype=histogram", "-p", "measurement.histogram.verbose=true", "-p", "histogram.buckets=20")
	if code != exitOK {
		t.Fatalf("histogram: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "[READ], LatencyVariance(us), ") || !strings.Contains(out, "[READ], >20, ") {
		t.Errorf("histogram, verbose, 20 buckets: not in the report:\n%s", out)
	}
	_, errOut, code = coordinateInProcess(t, agents, "--threshold", "READ.p99<1ns")
	if code != exitThresholds || !strings.Contains(errOut, "READ.p99<1ns") {
		t.Errorf("a crossed threshold in a fleet: exit %d\n%s", code, errOut)
	}
}

// A bad exportfile path is refused before any agent is reached (2).
func TestFleetRefusesBadExportPath(t *testing.T) {
	t.Parallel()
	_, errOut, code := coordinateInProcess(t, "127.0.0.1:1", "-p", "exportfile=/nonexistent/dir/x.json")
	if code != exitUsage || !strings.Contains(errOut, "exportfile") {
		t.Errorf("exit %d, %q; want 2 naming exportfile", code, errOut)
	}
}

// Every flag of a process's run is honoured or refused by a coordinator:
// --log writes the coordinator's library log, --serve-ssh is refused in
// one line (it was silently dropped).
func TestFleetScreenFlags(t *testing.T) {
	t.Parallel()
	agents := inProcessAgents(t, 1)
	logFile := filepath.Join(t.TempDir(), "lib.log")
	if _, errOut, code := coordinateInProcess(t, agents, "--log", logFile); code != exitOK {
		t.Fatalf("--log: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(logFile); err != nil {
		t.Errorf("--log in a fleet: %v", err)
	}
	_, errOut, code := coordinateInProcess(t, agents, "--serve-ssh", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(errOut, "--serve-ssh: not with --agents") {
		t.Errorf("--serve-ssh in a fleet: exit %d, %q", code, errOut)
	}
}
