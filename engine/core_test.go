package engine

// The engine's tests drive YCSB's core workload, which registers itself.
import _ "benchtop/workload/ycsb"
