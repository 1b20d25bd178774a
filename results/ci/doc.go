// Package ci gives the figures that decide something (a segment's or a
// probe's rate and percentiles, the run's) their 95 % confidence
// intervals, from the intervals they were measured in.
//
// The method (docs/whatif.md, "How sure a figure is"):
//   - The rate is a ratio, operations over seconds, measured in batches
//     of consecutive status intervals. Its interval is the batch-means
//     one: the ratio estimator's standard error from the batches'
//     residuals (count − rate × seconds), times Student's t with one
//     degree of freedom fewer than the batches. Batches are single
//     intervals until there are 64; then neighbours pair up (32 batches
//     of 2 intervals, and so on), so that a batch stays long against the
//     system's memory and a long run keeps at most 64 of them.
//   - A percentile's interval is the order statistics': the ranks
//     N·p ± z·√(N·p·(1−p)) of the N latencies, read from the histogram,
//     when the latencies are independent. They are not (a queue's
//     latencies come in runs), so the rank spread is widened to what the
//     batches show: the share of each batch's latencies above the
//     estimate, whose batch-means standard error times t, in ranks, is
//     used when it is wider (the latencies tied with the figure, in its
//     bucket, count in the share as far as the top 1 − p needs them).
//     The latencies above a percentile come in bursts, so that t has the
//     degrees of freedom of the batches holding them, (Σe)²/Σe² of
//     their counts e, less one, not of all the batches.
//   - With fewer than two batches there is no batch means: the rate's
//     interval is Poisson's (√count), the percentile's the order
//     statistics' alone.
//
// The assumptions: batches (status intervals, 1 s by default) are long
// against the system's memory, so that batch means are nearly
// independent; the segment is stationary (its first interval, the
// transition, is left out by the caller). The check is a coverage test
// on an M/M/c queue in model time (ci_test.go): the 95 % interval on
// p99 holds Erlang C's p99 in 90 to 99 of 100 seeds (93 at 120
// intervals of 1 s).
package ci
