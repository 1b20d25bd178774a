// Package equivalence holds a test only: what benchtop writes for each
// workload (the YCSB report's lines and the JSON summary's members,
// numbers aside; a fleet's, too) and the fleet protocol's bytes, held
// against goldens written before issue 35's moves, so that a change of
// packages changes none of them.
package equivalence
