package cli

import "errors"

// The help's text around what the tables give (help.go writes it).

// usageTitle opens the help.
const usageTitle = "benchtop — a live, interactive database benchmark for the terminal"

// usageKeys closes the help of the run commands: the live screen's keys.
const usageKeys = `Keys on the live screen: + - threads, > < threads x2 /2, ] [ partitions, } { x2 /2,
t T target +/-25 %, 0 unlimited, space pause, m mark, r new segment, tab view,
c theme, w chart window, s save report, ? help, q quit. A run goes on when its
terminal is lost (SIGHUP): benchtop attach takes its screen up again (d detaches).
`

// errCommandHelp is a command's -h or --help: its help on stdout, exit
// status 0.
var errCommandHelp = errors.New("help")
