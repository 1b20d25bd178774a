package adapters

import (
	"net/url"
	"sort"
	"strings"
)

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

// MaskSecretsIn replaces every secret property value found in s by ****
// (SecretValues): the last guard on a line that quotes a property (an
// error from afar).
func MaskSecretsIn(s string, props map[string]string) string {
	for _, v := range SecretValues(props) {
		s = strings.ReplaceAll(s, v, "****")
	}
	return s
}

// SecretValues are the secrets props hold, longest first: the values of
// secret keys (IsSecretKey) and, in the values of address keys (url, uri,
// endpoint, addr), the password of a user:password@ and the values of
// secret query parameters (what MaskURL masks). Values shorter than 3
// bytes are left out: masking them would mangle any text.
func SecretValues(props map[string]string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 3 {
			out = append(out, v)
		}
	}
	for k, v := range props {
		switch {
		case IsSecretKey(k):
			add(v)
			add(strings.TrimSpace(v))
		case isAddressKey(k):
			for _, sec := range urlSecrets(v) {
				add(sec)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// urlSecrets are the password and the secret query values of a URL (also
// in their escaped forms, as a URL's text holds them).
func urlSecrets(s string) []string {
	var out []string
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme == "" {
		// host:port strings and the like: a loose user:password@.
		if at := strings.LastIndex(s, "@"); at > 0 {
			if _, pw, ok := strings.Cut(s[:at], ":"); ok {
				out = append(out, strings.TrimPrefix(pw, "//"))
			}
		}
		return out
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw, url.PathEscape(pw), url.QueryEscape(pw))
		}
	}
	for k, vs := range u.Query() {
		if isSecretParam(k) {
			for _, v := range vs {
				out = append(out, v, url.QueryEscape(v))
			}
		}
	}
	return out
}

// isSecretParam is a URL query parameter MaskURL masks.
func isSecretParam(k string) bool {
	lk := strings.ToLower(k)
	return strings.Contains(lk, "password") || strings.Contains(lk, "secret") || strings.Contains(lk, "token") || lk == "authmechanismproperties"
}

// isAddressKey is a property that holds an address, which MaskURL masks.
func isAddressKey(key string) bool {
	lk := strings.ToLower(key)
	for _, s := range []string{"url", "uri", "endpoint", "addr"} {
		if strings.Contains(lk, s) {
			return true
		}
	}
	return false
}

func maskProperty(key, value string) string {
	if IsSecretKey(key) {
		return "****"
	}
	if isAddressKey(key) {
		return MaskURL(value)
	}
	return value
}
