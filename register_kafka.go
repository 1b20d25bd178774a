package main

// The kafka adapter registers itself here rather than in main.go's import
// list, so that it merges beside the branches that rewrite main.go; move
// it there at leisure.
import _ "benchtop/adapters/kafka"
