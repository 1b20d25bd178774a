// Package findmax is the capacity search of `benchtop run ...
// --find-max EXPR`: the highest rate a database sustains under
// conditions written in --threshold's language (results/thresholds), found
// live by probes that the search sets through an engine.Controller.
//
// The search holds one probe at a time. The first is unlimited: the rate
// it reaches is the upper bound. The next ones are paced targets that
// first step down from the bound until one passes, then bisect the bracket
// between the highest target that passed and the lowest that failed,
// until its width (hi-lo)/lo is within the precision asked for or the
// time budget runs out; a probe at the floor that fails means no rate
// meets the conditions. A probe is held until it is steady: its first
// interval (the transition a change causes) is left out, then it needs at
// least MinIntervals intervals and, for each percentile q it judges,
// 100/(1-q) successful operations. Latency is judged from the intended
// start when a rate is set: a rate the database cannot keep shows as
// queueing, not as a fast service time.
//
// A closed bracket is not yet the answer: its deciding failure is asked
// again with twice the threads when they may have been the limit, and the
// answer's rate is held (the longer of 30 intervals and 6 probe lengths)
// before it is given; a hold that fails steps the search down.
//
// The answer is trusted only when nothing else could have set it: the
// client's own CPU or NIC saturated, the threads were the limit (tested
// with twice as many, or seen at once by the first probes), operations
// failed, the bracket did not close or the answer was not held in the
// budget each make it untrusted, with the reason said.
//
// Files, one job each:
//
//	spec.go     the command line's values: conditions, precision, floor,
//	            budget, the thread counts of --find-max-over
//	judge.go    a probe's steady measurements against the conditions
//	probe.go    a probe: what it gathered, its verdict, its record
//	bracket.go  one search over one thread count: the bracket and the
//	            next target
//	hold.go     a closed bracket's thread test and hold, and the first
//	            probes' verdict on the threads
//	trust.go    why an answer cannot be trusted
//	report.go   the outcome: the JSON member "capacity", the answer line
//	search.go   the run's hooks (OnPhase, OnInterval, OnSnapshot): probes
//	            started, fed, judged; the screen's view; best and knee
//	control.go  the controller calls, made from a goroutine of their own
package findmax
