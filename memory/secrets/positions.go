package secrets

import (
	"encoding/base64"
	"iter"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// findPositions finds values in credential positions that look generated
// (generated.go): key=value and its YAML/TOML/INI/JSON/shell forms, URL
// userinfo, curl -u, netrc, Authorization headers and bearer credentials.
func findPositions(t *text, add func(Finding)) {
	s := t.s
	findAuthorization(t, add)
	findAssignments(t, add)
	if t.may("://") {
		findURLPasswords(s, add)
	}
	if t.may("curl") && (t.may(" -u") || t.may("\t-u") || t.may("--u")) { // -u and --user follow a blank
		findCurlUser(s, add)
	}
	if t.may("password") {
		findNetrc(s, add)
	}
}

// credentialWord says what the last word of a key names: a password, another
// credential (DB_PASSWORD, clientSecret, _authToken…), or neither (""). "key"
// names one only after a keyQualifier (API_KEY, AccountKey, secret key),
// "pass" only after another word (DB_PASS; "--- PASS: TestX" is go test's);
// "password" glued to a word still names one (PGPASSWORD, as libpq reads
// it), "token" glued to one does not (NextToken, pageToken are cursors);
// "tokens" (max_tokens) and "token_type" never do, nor a key with "public"
// in it (PublicKeyToken= is a .NET assembly's name). "Credential" is not
// one: PowerShell's -Credential is a user name.
func credentialWord(w string) string {
	switch w {
	case "password", "passwd", "passphrase", "pwd", "pass", "passcode":
		return "password"
	case "secret", "token", "auth", "apikey", "apitoken", "authtoken", "accesstoken", "secretkey", "accesskey",
		"privatekey", "clientsecret", "accountkey", "sharedaccesskey":
		return "credential"
	}
	return ""
}

func keyQualifier(w string) bool {
	switch w {
	case "api", "access", "secret", "private", "account", "master", "signing", "encryption", "auth", "client", "app",
		"application", "subscription", "consumer", "webhook", "deploy", "admin", "service", "storage":
		return true
	}
	return false
}

// assignmentWords are what findAssignments looks for in the lowercased
// text; a key that names a credential ends with one of them.
var assignmentWords = []string{"password", "passwd", "passphrase", "pwd", "pass", "passcode", "secret", "token", "key", "auth"}

// keyKind says whether key (which starts at s[start]) names a password,
// another credential, or neither ("").
func keyKind(key string, s string, start int) string {
	words := splitWords(key)
	if len(words) == 0 {
		return ""
	}
	for _, w := range words {
		if w := strings.ToLower(w); w == "public" || w == "publishable" {
			return ""
		}
	}
	last := strings.ToLower(words[len(words)-1])
	if last == "pass" && len(words) == 1 {
		return ""
	}
	if kind := credentialWord(last); kind != "" {
		return kind
	}
	if strings.HasSuffix(last, "password") || strings.HasSuffix(last, "passwd") {
		return "password" // glued to what it opens: PGPASSWORD, MYSQLPASSWORD
	}
	if last != "key" {
		return ""
	}
	prev := ""
	if len(words) > 1 {
		prev = words[len(words)-2]
	} else if start > 1 && s[start-1] == ' ' { // prose: "API key: …", "secret key = …"
		i := start - 1
		for i > 0 && (isWordByte(s[i-1]) && s[i-1] != '_') {
			i--
		}
		prev = s[i : start-1]
	}
	if keyQualifier(strings.ToLower(prev)) {
		return "credential"
	}
	return ""
}

// maxKey and maxValue bound how far a key and its value are read from the
// key word: no config key or credential is longer, and unbounded reads
// would make a long line with a key word every few bytes cost its square.
const (
	maxKey   = 128
	maxValue = 1024
)

// isKeyByte is a byte of a config key: DB_PASSWORD, spring.datasource.password, X-API-Key.
func isKeyByte(b byte) bool { return isWordByte(b) || b == '-' || b == '.' }

// findAssignments finds KEY=value, KEY = "value", key: value (YAML, a
// header, a line of notes), "key": "value" (JSON), key = 'value' (TOML,
// INI, Python), export KEY="value", Key=value; in a connection string,
// ?token=value in a URL and --password value on a command line, where the
// key names a credential and the value is a literal that looks generated.
func findAssignments(t *text, add func(Finding)) {
	s := t.s
	for _, w := range assignmentWords {
		if !t.may(w) {
			continue
		}
		lower := t.lower()
		for from := 0; ; {
			i := strings.Index(lower[from:], w)
			if i < 0 {
				break
			}
			i += from
			from = i + len(w)
			e := i + len(w)
			if e < len(s) && isWordByte(s[e]) {
				continue // the key goes on: tokens, token_type, passwordHash
			}
			b := i
			for b > 0 && i-b < maxKey && isKeyByte(s[b-1]) {
				b--
			}
			if b >= 2 && s[b-2:b] == "::" || inMarker(s, b) {
				continue // a namespaced name (AWS::ApiGateway::ApiKey), or a marker's kind, no key
			}
			key := s[b:e]
			j, ok := afterOperator(s, e, strings.HasPrefix(key, "--"))
			if !ok {
				continue // checked before keyKind, which costs more: in prose a key word is seldom followed by = or :
			}
			kind := keyKind(key, s, b)
			if kind == "" {
				continue
			}
			urlQuery := b > 0 && (s[b-1] == '?' || s[b-1] == '&')
			vs, ve, ok := literal(s, j, urlQuery)
			if !ok {
				continue
			}
			st := tokenStrength
			if kind == "password" {
				st = passwordStrength
			}
			if !generated(s[vs:ve], st) || holdsKeyWord(key, s[vs:ve]) {
				continue
			}
			if q := s[vs-1]; (q == '"' || q == '\'' || q == '`') && closes(s, vs-1) {
				continue // "PWD="+dir: that quote ends a string, none starts (checked last: it reads the line back)
			}
			add(Finding{Kind: kind, Start: vs, End: ve})
		}
	}
}

// inMarker: s[i] is inside a marker ("[secret: password] =x" holds no key:
// a second Redact must change nothing).
func inMarker(s string, i int) bool {
	before := s[max(0, i-markerMost):i]
	j := strings.LastIndex(before, markerOpen)
	return j >= 0 && !strings.Contains(before[j:], markerClose)
}

// holdsKeyWord: the value holds the last word of its key, so it is a name
// ("encryptionKey": "encryptionKey1024", apiKey=apiKey2).
func holdsKeyWord(key, v string) bool {
	words := splitWords(key)
	last := strings.ToLower(words[len(words)-1])
	return len(last) >= 3 && strings.Contains(strings.ToLower(v), last)
}

// afterOperator reads what joins a key to its value — the closing quote or
// bracket of a quoted key, blanks, then = := => or : — and returns where
// the value starts. A comparison (==, !=, =~), a path (::) and a colon
// glued to what follows (a time 12:30, a Redis key session:token:…) are no
// assignment; for a command-line flag (--password) a blank is one.
func afterOperator(s string, e int, flag bool) (int, bool) {
	j := e
	quotedKey := false
	for j < len(s) && j < e+2 && (s[j] == '"' || s[j] == '\'' || s[j] == ']') {
		quotedKey = quotedKey || s[j] != ']'
		j++
	}
	blanks := j
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j >= len(s) {
		return 0, false
	}
	switch {
	case strings.HasPrefix(s[j:], ":=") || strings.HasPrefix(s[j:], "=>"):
		j += 2
	case s[j] == '=':
		if j+1 < len(s) && (s[j+1] == '=' || s[j+1] == '~' && j > blanks) {
			return 0, false // ==, and =~ after a blank; PASSWORD=~x is an assignment
		}
		j++
	case s[j] == ':':
		if j+1 >= len(s) {
			return 0, false
		}
		if c := s[j+1]; c != ' ' && c != '\t' && !(quotedKey && (c == '"' || c == '\'')) {
			return 0, false
		}
		j++
	case flag && j > blanks && j == blanks+1:
		// --password value
	default:
		return 0, false
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return j, true
}

// literal reads the value at s[j:]: a quoted string on one line (its
// inside; Python's b"", r"", u"" too, an f-string is code), or a bare run
// up to a blank, a quote, a comma or a semicolon (and & in a URL's query),
// without the sentence's punctuation after it. It says no to what is not
// a literal: an expression, a placeholder, a YAML block (|, >).
func literal(s string, j int, urlQuery bool) (int, int, bool) {
	if j >= len(s) {
		return 0, 0, false
	}
	if j+1 < len(s) && strings.IndexByte("bBrRuUfF", s[j]) >= 0 && (s[j+1] == '"' || s[j+1] == '\'') {
		if s[j] == 'f' || s[j] == 'F' {
			return 0, 0, false
		}
		j++
	}
	if q := s[j]; q == '"' || q == '\'' || q == '`' {
		k := strings.IndexByte(s[j+1:min(len(s), j+1+maxValue)], q)
		if k < 0 || strings.IndexByte(s[j+1:j+1+k], '\n') >= 0 || placeholder(s[j+1:j+1+k]) {
			return 0, 0, false
		}
		return j + 1, j + 1 + k, true
	}
	k := j
	for k < len(s) && !isSpace(s[k]) && strings.IndexByte("\"'`,;", s[k]) < 0 && !(urlQuery && s[k] == '&') {
		if k++; k-j > maxValue {
			return 0, 0, false
		}
	}
	v := strings.TrimRight(s[j:k], ".:!?")
	for _, pair := range []string{"()", "[]", "{}"} {
		if strings.HasSuffix(v, pair[1:]) && strings.Count(v, pair[:1]) < strings.Count(v, pair[1:]) {
			v = strings.TrimRight(v[:len(v)-1], ".:!?")
		}
	}
	if v == "" || expression(v) {
		return 0, 0, false
	}
	return j, j + len(v), true
}

// closes tells whether the quote at s[j] closes a string opened before it
// on its line: an odd number of the same quotes (not escaped) before it,
// counted over the line's last 4 KB (a line of minified JSON is longer;
// its quotes pair up).
func closes(s string, j int) bool {
	n := 0
	for i := j - 1; i >= 0 && i >= j-4096 && s[i] != '\n'; i-- {
		if s[i] == s[j] && (i == 0 || s[i-1] != '\\') {
			n++
		}
	}
	return n%2 == 1
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// findURLPasswords finds the password of a URL's userinfo:
// postgres://admin:…@host, mongodb+srv://…, redis://:…@host.
func findURLPasswords(s string, add func(Finding)) {
	for from := 0; ; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return
		}
		i += from
		from = i + 3
		if i == 0 || !isWordByte(s[i-1]) {
			continue // no scheme
		}
		p := i + 3
		k := p
		for k < len(s) && k-p < maxValue && !isSpace(s[k]) && strings.IndexByte("/?\"'<>`", s[k]) < 0 { // a # in a password is pasted unencoded
			k++
		}
		at := strings.LastIndexByte(s[p:k], '@')
		if at < 0 {
			continue
		}
		c := strings.IndexByte(s[p:p+at], ':')
		if c < 0 {
			continue
		}
		pw := s[p+c+1 : p+at]
		if len(pw) < passwordStrength.minLen || strings.IndexByte(pw, ':') >= 0 || expression(pw) {
			continue // a list of hosts (a:1,b:2@c), not userinfo
		}
		if u, err := url.PathUnescape(pw); err == nil {
			pw = u // My%20Pass is "My Pass", words
		}
		if !generated(pw, passwordStrength) {
			continue
		}
		add(Finding{Kind: "password", Start: p + c + 1, End: p + at})
	}
}

var (
	curlUser = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`curl[^\n]*?[ \t](?:-u|--user)(?:[ \t]+|=)(["']?)[^\s:"']*:([^\s"']+)`)
	})
	netrcLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*(?:(?:machine[ \t]+\S+|default)[ \t]+)?(?:login[ \t]+\S+[ \t]+)?password[ \t]+(\S+)[ \t]*$`)
	})
)

// findCurlUser finds the password of curl -u user:password / --user.
func findCurlUser(s string, add func(Finding)) {
	for _, m := range curlUser().FindAllStringSubmatchIndex(s, -1) {
		pw := s[m[4]:m[5]]
		if expression(pw) || !generated(pw, passwordStrength) {
			continue
		}
		add(Finding{Kind: "password", Start: m[4], End: m[5]})
	}
}

// netrcMatches are netrcLine's matches in s, in order. A match is one
// whole line holding "password" (nothing in the pattern crosses a newline,
// and its ^ and $ match at a line's ends as they do at a text's), so the
// pattern runs on those lines only, not from every line start of a note
// that says "password" once.
func netrcMatches(s string) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		for from := 0; from < len(s); {
			i := strings.Index(s[from:], "password")
			if i < 0 {
				return
			}
			i += from
			ls, le := strings.LastIndexByte(s[:i], '\n')+1, len(s)
			if k := strings.IndexByte(s[i:], '\n'); k >= 0 {
				le = i + k
			}
			from = le
			if !netrcStart(s[ls:le]) {
				continue
			}
			m := netrcLine().FindStringSubmatchIndex(s[ls:le])
			if m == nil {
				continue
			}
			for k := range m {
				m[k] += ls
			}
			if !yield(m) {
				return
			}
		}
	}
}

// netrcStart: the line's first word is one netrcLine's can be, a check
// that costs less than the pattern's.
func netrcStart(line string) bool {
	line = strings.TrimLeft(line, " \t")
	for _, w := range []string{"machine", "default", "login", "password"} {
		if strings.HasPrefix(line, w) {
			return true
		}
	}
	return false
}

// findNetrc finds a .netrc password: "machine h login u password p" on one
// line, or a line "password p" within three lines after a "machine" one.
// Only there: "password" followed by a word is otherwise prose.
func findNetrc(s string, add func(Finding)) {
	for m := range netrcMatches(s) {
		line := strings.TrimSpace(s[m[0]:m[1]])
		if !strings.HasPrefix(line, "machine") && !strings.HasPrefix(line, "default") {
			before := s[:m[0]]
			for range 3 {
				if i := strings.LastIndexByte(strings.TrimRight(before, "\n"), '\n'); i >= 0 {
					before = before[:i]
				} else {
					before = ""
					break
				}
			}
			recent := s[len(before):m[0]]
			if !strings.Contains(recent, "machine ") && !strings.Contains(recent, "default") {
				continue
			}
		}
		pw := s[m[2]:m[3]]
		if expression(pw) || !generated(pw, passwordStrength) {
			continue
		}
		add(Finding{Kind: "password", Start: m[2], End: m[3]})
	}
}

// findAuthorization finds the credential of an Authorization header
// (Authorization: Bearer …, Basic …, token …, or bare; in curl -H, in a
// header map "Authorization": "…", in Header.Set("Authorization", "…")),
// and a bearer credential anywhere ("Bearer …"). A Basic credential is
// base64 of user:password, decoded to say so.
func findAuthorization(t *text, add func(Finding)) {
	s := t.s
	for from := 0; t.may("authorization"); {
		lower := t.lower()
		i := strings.Index(lower[from:], "authorization")
		if i < 0 {
			break
		}
		i += from
		from = i + len("authorization")
		if i > 0 && isWordByte(s[i-1]) {
			continue // EndpointAuthorization: a name
		}
		j, sep := from, false
		for j < len(s) && j < from+6 && strings.IndexByte("\"' \t:=,", s[j]) >= 0 {
			sep = sep || s[j] == ':' || s[j] == '=' || s[j] == ','
			j++
		}
		if !sep {
			continue
		}
		scheme := j
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
			j++
		}
		kind, bare := "bearer token", false
		switch strings.ToLower(s[scheme:j]) {
		case "basic":
			kind = "basic credentials"
		case "bearer", "token", "bot", "apikey":
		default:
			j, bare = scheme, true // no scheme: the value itself
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		v := credentialRun(s, j)
		if v == "" {
			continue
		}
		if kind == "basic credentials" {
			if !basicCredentials(v) {
				continue
			}
		} else if !generated(v, tokenStrength) || bare && !strings.ContainsAny(v, "0123456789") {
			continue // bare, a token has a digit: "Authorization", "Www-Authenticate" lists names
		}
		add(Finding{Kind: kind, Start: j, End: j + len(v)})
	}
	for from := 0; t.may("bearer"); {
		lower := t.lower()
		i := strings.Index(lower[from:], "bearer")
		if i < 0 {
			return
		}
		i += from
		from = i + len("bearer")
		if i > 0 && isWordByte(s[i-1]) || from >= len(s) || s[from] != ' ' && s[from] != '\t' {
			continue
		}
		j := from
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if v := credentialRun(s, j); v != "" && generated(v, tokenStrength) {
			add(Finding{Kind: "bearer token", Start: j, End: j + len(v)})
		}
	}
}

// credentialRun is the token68 at s[j:] (RFC 7235: letters, digits and
// -._~+/ then = padding), or "" when what follows it shows an expression.
func credentialRun(s string, j int) string {
	k := j
	for k < len(s) && k-j < maxValue && (isWordByte(s[k]) || strings.IndexByte("-.~+/", s[k]) >= 0) {
		k++
	}
	for k < len(s) && s[k] == '=' {
		k++
	}
	v := strings.TrimRight(s[j:k], ".")
	if k < len(s) && strings.IndexByte("({[$<", s[k]) >= 0 || dotted(v) {
		return ""
	}
	return v
}

// basicCredentials: v is base64 of user:password with a password that looks
// like one.
func basicCredentials(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "=")); err != nil {
			return false
		}
	}
	_, pw, ok := strings.Cut(string(b), ":")
	return ok && (generated(pw, passwordStrength) || generated(pw, tokenStrength))
}
