package cli

// The help's text around the commands' lines (root.go writes them).

// usageTitle opens the help.
const usageTitle = "benchtop — a live, interactive database benchmark for the terminal"

// usageFlags follows the commands in the help: the flags and the keys.
const usageFlags = `YCSB flags (as ./bin/ycsb takes them):
  -P FILE            property file (repeatable; later files win)
  -p key=value       property (repeatable; later wins; beats -P)
  -threads N         client threads (threadcount)
  -target N          total target ops/s (0 = unlimited)
  -s                 status line every interval on stderr

benchtop flags (also with --):
  --headless         plain output even on a terminal
  --json FILE        JSON summary (segments, operations, phases); - is standard output
  --timeseries FILE  CSV, one row per interval
  --hdr-log FILE     HdrHistogram interval log
  --html FILE        the report to hand over: one self-contained HTML page
  --baseline FILE    an earlier run to compare with: its --json summary, and again its
                     --timeseries CSV or --hdr-log for its throughput per interval
  --at OFFSET:key=value   scheduled live change: threads, partitions, target, pause, resume, mark, stop
                          e.g. --at 5s:threads=16 --at 10s:partitions=8
  --sweep key=v1,v2,...   a staircase of --at steps, one segment per value (threads, partitions, target)
  --step DURATION    time per sweep value (default 10s; at least 5 status intervals, so that
                     each segment can be judged best or knee)
  --theme NAME       dark, light, high-contrast, colorblind
  --metrics ADDR     serve the live figures to Prometheus at http://ADDR/metrics (e.g. :9464)
  --metrics-push URL push them every interval with Prometheus remote write (docs/metrics.md);
                     --metrics-run NAME labels the run, --metrics-linger D, --metrics-go

Fleet flags (run or load from many client machines, each running benchtop agent):
  --agents HOST:PORT,...   the agents (or NAME=HOST:PORT); --agents-file FILE: one a line
  --ssh [USER@]HOST,...    start benchtop agent --stdio on each host through OpenSSH (--ssh-copy copies this binary)
  --token-file FILE        the agents' shared token (or BENCHTOP_TOKEN); --tls-ca FILE for TLS agents
  -threads is per agent; -target, operationcount and a stream's partitions are the fleet's, divided

Keys on the live screen: + - threads, > < threads x2 /2, ] [ partitions, } { x2 /2,
t T target +/-25 %, 0 unlimited, space pause, m mark, r new segment, tab view,
c theme, w chart window, s save report, ? help, q quit. A run goes on when its
terminal is lost (SIGHUP): benchtop attach takes its screen up again (d detaches).
`
