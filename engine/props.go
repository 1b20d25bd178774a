package engine

import (
	"fmt"
	"io"
	"os"

	"benchtop/adapters"
)

// ParseProperties reads Java-properties text as YCSB's property files use
// it (see adapters.ParseProperties, which credentials files share).
func ParseProperties(r io.Reader) (map[string]string, error) {
	return adapters.ParseProperties(r)
}

// LoadPropertiesFile reads a property file (-P).
func LoadPropertiesFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ParseProperties(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
