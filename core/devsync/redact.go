package devsync

import (
	"net/url"
	"strings"
)

// Redact is a remote URL as sync may say or write it: a password in it
// is masked (url.Redacted), and so is the user part of an http(s) URL,
// where it is a token (https://TOKEN@host/…). Other forms (user@host:path,
// a folder) hold no secret and are returned as they are.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		return u.Redacted()
	}
	if s := strings.ToLower(u.Scheme); s == "http" || s == "https" {
		u.User = url.User("xxxxx")
		return u.String()
	}
	return raw
}

// secrets are the parts of a remote URL that must not appear in any
// message: the URL itself (said redacted instead), its password, and an
// http(s) URL's user.
func secrets(raw string) (pairs []string) {
	if red := Redact(raw); red != raw {
		pairs = append(pairs, raw, red)
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return pairs
	}
	if p, has := u.User.Password(); has && p != "" {
		pairs = append(pairs, p, "xxxxx")
	} else if s := strings.ToLower(u.Scheme); (s == "http" || s == "https") && u.User.Username() != "" {
		pairs = append(pairs, u.User.Username(), "xxxxx")
	}
	return pairs
}
