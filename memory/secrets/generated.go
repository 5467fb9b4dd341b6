package secrets

import (
	"encoding/base64"
	"math"
	"strings"
)

// strength is how generated a value in a credential position must look.
// A password is often chosen by a person ("hunter2"), so the bar is lower
// than for a token or key, which a machine made. Every figure has a test on
// each side of it (TestThresholds).
type strength struct {
	minLen  int     // bytes
	minBits float64 // Shannon entropy, bits per byte
	digit   bool    // a digit is required (else a symbol will do, or three classes)
}

var (
	// passwordStrength: six bytes, a letter and a digit or symbol, 2 bits
	// a byte ("hunter2" 2.81, "k3vr3t" 2.25; "aaa111" 1.0, "abab12" 1.92).
	passwordStrength = strength{minLen: 6, minBits: 2.0}
	// tokenStrength: sixteen bytes, a letter and a digit (or three
	// character classes), 2.5 bits a byte: 32 random hex digits carry ~3.8,
	// base62 ~4.5; 16 random hex digits fall under 3.0 one time in seven,
	// under 2.5 one in a thousand; "aaaabbbbcccc1111" carries 2.0.
	tokenStrength = strength{minLen: 16, minBits: 2.5, digit: true}
)

// generated tells a machine-made value (or a person's password in a
// password position) from a word, a name, a placeholder or a path.
func generated(v string, st strength) bool {
	if len(v) < st.minLen {
		return false
	}
	var lower, upper, digit, symbol bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		default:
			symbol = true
		}
	}
	if !lower && !upper {
		return false // a number, a date, a time: no letter, no secret
	}
	classes := 0
	for _, b := range []bool{lower, upper, digit, symbol} {
		if b {
			classes++
		}
	}
	switch {
	case st.digit && !digit && classes < 3:
		return false
	case !st.digit && !digit && !symbol:
		return false // letters only: a word ("changeme", "patience")
	}
	if entropy(v) < st.minBits {
		return false
	}
	if st.digit && strings.ContainsAny(v, " \t") {
		return false // a token has no blank: "Bearer resource_metadata=" is code's text
	}
	if d, ok := decodedText(v); ok && (namesItself(d) || sentence(d)) {
		return false // base64 of "isaacs:not my real password", a doc's example
	}
	return !wordy(v) && !isPath(v) && !strings.Contains(v, "://") && !uri(v) && !namesItself(v)
}

// uri: a value that starts with a scheme of three letters or more and a
// colon names something — urn:uuid:…, arn:aws:secretsmanager:…, mailto:…
func uri(v string) bool {
	i := strings.IndexByte(v, ':')
	return i >= 3 && strings.IndexFunc(v[:i], func(r rune) bool { return r < 'a' || r > 'z' }) < 0
}

// decodedText is v decoded from base64, when it is base64 of printable
// ASCII text.
func decodedText(v string) (string, bool) {
	if len(v)%4 != 0 {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(b) == 0 {
		return "", false
	}
	for _, c := range b {
		if c < ' ' || c > '~' {
			return "", false
		}
	}
	return string(b), true
}

// namesItself: a value that holds a credential's name is a name or a
// placeholder ("password1", "X-Fake-Connection-Token", "my_secret_2"),
// also spelt the way docs and tests spell their example passwords
// ("P@ssw0rd", "secr3t", "passwo^rd"), or says it is one ("changeme"). A
// person's "Password123!" is missed: precision first.
func namesItself(v string) bool {
	l := strings.Map(func(r rune) rune { // "pa/ssword", "passwo^rd"
		if r < 'a' || r > 'z' {
			return -1
		}
		return r
	}, strings.Map(unleet, strings.ToLower(v)))
	for _, w := range []string{"password", "passwd", "secret", "token", "changeme", "placeholder", "dummy"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// unleet undoes the digits and symbols that stand for letters in example
// passwords.
func unleet(r rune) rune {
	if i := strings.IndexRune("@43105$7", r); i >= 0 {
		return rune("aaeiosst"[i])
	}
	return r
}

// entropy is the Shannon entropy of v's bytes, in bits per byte.
func entropy(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	h, n := 0.0, float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// wordy tells a value made of two or more words — an identifier or a
// placeholder: OPENAI_API_KEY, your-api-key-here, myPassword1,
// github_token_2024, serverlessrepo:applicationId — from a generated one.
// A value with a symbol no name holds is none. The value is cut at _ - . :
// and blanks and where camelCase starts a word (splitWords); it is wordy
// when its pieces are three characters long or more on average and every
// piece is a word or a short number (wordPiece).
func wordy(v string) bool {
	if sentence(v) {
		return true
	}
	if strings.IndexFunc(v, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r == ':' || r == ' ' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		return false // "hunt#er": a symbol no name holds
	}
	pieces := splitWords(v)
	if len(pieces) < 2 || len(strings.Join(pieces, "")) < 3*len(pieces) {
		return false // one piece; or two characters a piece: "qg2Nj-7H44WfOd" is random
	}
	if len(pieces) < 3 && !strings.ContainsAny(v, "_-.: ") {
		return false // "Tyat15Wjywo": two camel pieces say little; myPassword1 names itself
	}
	if joined := strings.Join(pieces, ""); 2*classRuns(joined) > len(joined) {
		return false // "H5IJED1KusE357_hg9DF": case and digits change every other byte
	}
	for _, p := range pieces {
		if !wordPiece(p) {
			return false
		}
	}
	return true
}

// sentence: words (an apostrophe inside, punctuation after) and short
// numbers between blanks — "Some Pass", "Don't tell anyone, it's for the 2
// of them!"
func sentence(v string) bool {
	fields := strings.Fields(v)
	if len(fields) < 2 {
		return false
	}
	for _, f := range fields {
		f = strings.Trim(f, `,;:!?.'"()`)
		letters := strings.IndexFunc(f, func(r rune) bool { return !(r == '\'' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) < 0
		number := len(f) <= 5 && strings.IndexFunc(f, func(r rune) bool { return r < '0' || r > '9' }) < 0
		if f == "" || !letters && !number {
			return false
		}
	}
	return true
}

// wordPiece: a word with at most five digits after it ("Password",
// "token2024", "API", "Ed25519", "P256"), or a number of at most five
// digits. A word is in one case or Capitalized, and has a vowel from three
// letters on ("Hkl", "EBDX" are random runs; db, cfg, API, PKCS are
// words).
func wordPiece(p string) bool {
	letters := strings.TrimRight(p, "0123456789")
	digits := len(p) - len(letters)
	switch {
	case digits > 5:
		return false
	case letters == "":
		return digits > 0
	case len(letters) == 1 && digits == 0:
		return false
	}
	first, rest := letters[0], letters[1:]
	if first < 'A' || first > 'Z' && first < 'a' || first > 'z' {
		return false
	}
	allUpper := strings.IndexFunc(letters, func(r rune) bool { return r < 'A' || r > 'Z' }) < 0
	if !allUpper && strings.IndexFunc(rest, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return false
	}
	l := strings.ToLower(letters)
	return len(l) < 3 || strings.ContainsAny(l, "aeiouy") || vowelless(l)
}

// vowelless: the words of code that have no vowel.
func vowelless(w string) bool {
	switch w {
	case "cfg", "ctx", "msg", "src", "dst", "pwd", "tmp", "str", "http", "https", "sql", "xml", "dns", "cls", "pkg",
		"cmd", "mgr", "svc", "srv", "cnt", "ptr", "rgb", "jwt", "crt", "pkcs", "ssh", "tls", "www", "smtp", "ssl", "tcp",
		"gcp", "html", "css":
		return true
	}
	return false
}

// splitWords cuts an identifier into its words: at any byte that is not a
// letter or digit, and at camelCase boundaries (apiKey → api Key, APIKey →
// API Key, 1Password → 1 Password).
func splitWords(v string) []string {
	var out []string
	start := -1
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isAlnum := func(c byte) bool { return isUpper(c) || isLower(c) || c >= '0' && c <= '9' }
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isAlnum(c) {
			if start >= 0 {
				out = append(out, v[start:i])
				start = -1
			}
			continue
		}
		if start >= 0 && isUpper(c) {
			prev := v[i-1]
			if !isUpper(prev) || i+1 < len(v) && isLower(v[i+1]) {
				out = append(out, v[start:i])
				start = i
			}
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, v[start:])
	}
	return out
}

// classRuns counts the runs of one class (lower, upper, digit, other) in v,
// a Capitalized word one run: a name changes class every three bytes or
// more (testP256PrivateKey: test P 256 Private Key, 5 in 18), a random
// string every two or so.
func classRuns(v string) int {
	class := func(c byte) int {
		switch {
		case c >= 'a' && c <= 'z':
			return 0
		case c >= 'A' && c <= 'Z':
			return 1
		case c >= '0' && c <= '9':
			return 2
		}
		return 3
	}
	runs := 0
	for i := 0; i < len(v); i++ {
		if i == 0 || class(v[i]) != class(v[i-1]) && !(class(v[i-1]) == 1 && class(v[i]) == 0) {
			runs++
		}
	}
	return runs
}

// isPath: /home/ada/project (what `PWD=` holds in an environment dump),
// ./x, ~/x, C:\x.
// A segment mixing upper and lower case and digits is no folder's name:
// "/hnk8AVQqWXy8RFpm…" is base64 that starts with a slash.
func isPath(v string) bool {
	if !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") ||
		strings.HasPrefix(v, "~/") || len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/')) {
		return false
	}
	for seg := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == '/' || r == '\\' }) {
		if strings.ContainsAny(seg, lowerLetters) && strings.ContainsAny(seg, upperLetters) && strings.ContainsAny(seg, "0123456789") {
			return false
		}
	}
	return true
}

const (
	lowerLetters = "abcdefghijklmnopqrstuvwxyz"
	upperLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
)

// dotted is an attribute access: tokenizer.eos_token, settings.API_KEY,
// process.env.TOKEN — identifiers joined by dots.
func dotted(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !identifier(p) {
			return false
		}
	}
	return true
}

// expression tells an unquoted value that is code, not a literal: a
// variable's expansion ($VAR, ${VAR}, %VAR%, $(cmd)), a call, an index, a
// template ({{x}}, <x>), an attribute access, a YAML tag, anchor or alias
// (!vault, &db_password, *db_password; "*HaBniWIt8DaV" is a password).
func expression(v string) bool {
	if djangoKey(v) {
		return false
	}
	return strings.ContainsAny(v, "()[]{}<>$`") || strings.HasPrefix(v, "%") || dotted(v) ||
		len(v) > 1 && strings.IndexByte("!&*", v[0]) >= 0 && identifier(v[1:]) && !generated(v[1:], passwordStrength)
}

// djangoKey: a key as Django makes one (get_random_secret_key: 50 of a-z,
// 0-9 and !@#$%^&*(-_=+)), pasted unquoted in a .env. Its ( and $ fall
// there by chance: 40 bytes or more of that alphabet alone, digits and
// three of its symbols or more, 4 bits a byte. Code in that alphabet is a
// call, name(…) (keyring_get(name=db2_admin_user)), or has no digit; a
// random key is shaped like a call one time in a thousand.
func djangoKey(v string) bool {
	const symbols = "!@#$%^&*(-_=+)"
	if len(v) < 40 || strings.IndexFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(symbols, r))
	}) >= 0 || !strings.ContainsAny(v, "0123456789") {
		return false
	}
	if i := strings.IndexByte(v, '('); i > 0 && identifier(v[:i]) && strings.HasSuffix(v, ")") {
		return false // a call
	}
	n := 0
	for _, c := range symbols {
		if strings.ContainsRune(v, c) {
			n++
		}
	}
	return n >= 3 && entropy(v) >= 4.0
}

// identifier: letters, digits and _, not starting with a digit.
func identifier(v string) bool {
	return v != "" && !(v[0] >= '0' && v[0] <= '9') && strings.IndexFunc(v, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0
}

// placeholder tells a quoted literal that is filled in later: "${TOKEN}",
// "$PASS", "{{ vault_pw }}", f"{token}", "<your key>", "%(pw)s", "%s".
func placeholder(v string) bool {
	if i := strings.IndexByte(v, '$'); i >= 0 && i+1 < len(v) {
		if c := v[i+1]; c == '{' || c == '(' || c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			return true
		}
	}
	return enclosedName(v, "{", "}") || enclosedName(v, "<", ">") || enclosedName(v, "%(", ")") || strings.Contains(v, "%s")
}

// enclosedName: v holds open, a name (letters, digits, _ . - and blanks:
// "{ vault_pw }", "<your key>"), then close. A Django secret key holds "%("
// and "{" by chance, never around a name.
func enclosedName(v, open, close string) bool {
	for {
		i := strings.Index(v, open)
		if i < 0 {
			return false
		}
		v = v[i+len(open):]
		j := strings.Index(v, close)
		if j < 0 {
			return false
		}
		name := strings.Trim(v[:j], " {")
		if name != "" && strings.IndexFunc(name, func(r rune) bool {
			return !(r == '_' || r == '.' || r == '-' || r == ' ' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			return true
		}
	}
}
