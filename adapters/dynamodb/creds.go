package dynamodb

import (
	"errors"
	"strings"

	"benchtop/adapters"
	"benchtop/internal/infile"
)

// fileCredentials are the keys of a YCSB AWSCredentials.properties file.
type fileCredentials struct {
	AccessKey string
	SecretKey string
}

// readCredentialsFile reads a Java properties file with accessKey and
// secretKey, as YCSB's binding does (through the Java SDK's
// PropertiesCredentials). Errors name the file and the missing key, never a
// line of the file, which may hold the secret.
func readCredentialsFile(path string) (fileCredentials, error) {
	f, err := infile.Open(path)
	if err != nil {
		return fileCredentials{}, err
	}
	defer f.Close()
	props, err := parseJavaProperties(f)
	if err != nil {
		return fileCredentials{}, err
	}
	c := fileCredentials{
		AccessKey: strings.TrimSpace(props["accessKey"]),
		SecretKey: strings.TrimSpace(props["secretKey"]),
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return fileCredentials{}, errors.New("the file does not contain both accessKey and secretKey")
	}
	return c, nil
}

// parseJavaProperties reads the java.util.Properties text format, as the
// Java SDK's PropertiesCredentials does.
var parseJavaProperties = adapters.ParseProperties
