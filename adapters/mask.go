package adapters

import "strings"

// MaskProperties returns a copy of props fit for reports, screens and logs:
// the values of keys that name a secret (password, passwd, secret, token,
// credential) become "****", and the values of keys that hold an address
// (url, endpoint, addr) go through MaskURL. props is not changed.
func MaskProperties(props map[string]string) map[string]string {
	out := make(map[string]string, len(props))
	for k, v := range props {
		out[k] = maskProperty(k, v)
	}
	return out
}

// IsSecretKey reports whether a property's name says it holds a secret
// (password, passwd as in YCSB's db.passwd, secret, token, credential).
func IsSecretKey(key string) bool {
	lk := strings.ToLower(key)
	for _, s := range []string{"password", "passwd", "secret", "token", "credential"} {
		if strings.Contains(lk, s) {
			return true
		}
	}
	return false
}

// MaskSecretsIn replaces every secret property value found in s by ****:
// the last guard on a line that quotes a property (an error from afar).
func MaskSecretsIn(s string, props map[string]string) string {
	for k, v := range props {
		if IsSecretKey(k) && len(v) >= 3 {
			s = strings.ReplaceAll(s, v, "****")
		}
	}
	return s
}

func maskProperty(key, value string) string {
	if IsSecretKey(key) {
		return "****"
	}
	lk := strings.ToLower(key)
	for _, s := range []string{"url", "uri", "endpoint", "addr"} {
		if strings.Contains(lk, s) {
			return MaskURL(value)
		}
	}
	return value
}
