package core

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"agent/core/window"
	"agent/index/sqlitedb"
	"agent/memory/secrets"
)

// Session is one conversation.
type Session struct {
	ID        int64     `json:"-"`
	Name      string    `json:"name"`
	Title     string    `json:"title"`  // from its first message's words (listings and Get); "" when it has none
	Status    string    `json:"status"` // SessionAnswered, SessionUnanswered or SessionEmpty
	Model     string    `json:"model"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Turns     int       `json:"turns"` // user messages
	// Last exchange, for listings and the runtime section.
	LastUser      string `json:"last_user"`
	LastAssistant string `json:"last_assistant"`
}

// JSONTime is how every command writes a timestamp in --json: RFC 3339 in
// UTC, to the second ("2026-11-22T09:30:00Z").
func JSONTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// A session's stored messages are the window's (core/window), which
// replays them; these names are core's.
type (
	StoredMessage = window.StoredMessage
	LogSpan       = window.LogSpan
	StoredRefs    = window.StoredRefs
)

// Message status values.
const (
	StatusComplete    = window.StatusComplete
	StatusInterrupted = window.StatusInterrupted
	StatusError       = window.StatusError
)

// Sessions is the session store in state.db. Its SQL lives here and only here.
type Sessions struct {
	db  *sql.DB
	now func() time.Time
}

// NewSessions returns the session store of an open workspace.
func NewSessions(db *sql.DB, now func() time.Time) *Sessions { return &Sessions{db: db, now: now} }

const (
	// The turn count is kept on the session (migration 0003); the last
	// messages are found walking back the session's messages by index,
	// a few rows whatever its length.
	sqlSessionSelect = `SELECT s.id, s.name, s.model, s.created_at, s.updated_at, s.turns,
		COALESCE((SELECT content FROM messages m WHERE m.session_id = s.id AND m.role = 'user' ORDER BY id DESC LIMIT 1), ''),
		COALESCE((SELECT content FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant' AND m.content != '' ORDER BY id DESC LIMIT 1), '')
		FROM sessions s`
	sqlSessionByName = sqlSessionSelect + ` WHERE s.name = ?`
	sqlSessionByID   = sqlSessionSelect + ` WHERE s.id = ?`
	// Every session's name and the start of its first user message, the
	// words its title is made of (titles), oldest first.
	sqlSessionFirstWords = `SELECT s.id, s.name, COALESCE((SELECT substr(content, 1, 400) FROM messages m
		WHERE m.session_id = s.id AND m.role = 'user' ORDER BY id LIMIT 1), '') FROM sessions s ORDER BY s.id`
	sqlSessionLatest = sqlSessionSelect + ` ORDER BY s.updated_at DESC, s.id DESC LIMIT 1`
	sqlSessionList   = sqlSessionSelect + ` ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`
	// The answered sessions, and how many are not.
	sqlAnswered         = `EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant' AND m.content != '')`
	sqlSessionListReply = sqlSessionSelect + ` WHERE ` + sqlAnswered + ` ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`
	sqlSessionsNoReply  = `SELECT count(*) FROM sessions s WHERE NOT ` + sqlAnswered
	sqlSessionInsert    = `INSERT INTO sessions (name, model, created_at, updated_at) VALUES (?, ?, ?, ?)`
	// One statement, so SQLite's write lock makes the pick and the insert
	// atomic: the base name if free, else base-N for one more than the
	// largest numeric suffix in use (at least 2).
	sqlSessionInsertFree = `INSERT INTO sessions (name, model, created_at, updated_at)
		SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM sessions WHERE name = ?1) THEN ?1
			ELSE ?1 || '-' || (SELECT max(1, COALESCE(max(CAST(substr(name, length(?1) + 2) AS INTEGER)), 1)) + 1
				FROM sessions WHERE substr(name, 1, length(?1) + 1) = ?1 || '-'
				AND substr(name, length(?1) + 2) GLOB '[0-9]*' AND NOT substr(name, length(?1) + 2) GLOB '*[^0-9]*')
		END, ?2, ?3, ?4
		RETURNING id, name, created_at, updated_at`
	sqlSessionTouch   = `UPDATE sessions SET updated_at = ?, model = ?, turns = turns + (? = 'user') WHERE id = ?`
	sqlMessageInsert  = `INSERT INTO messages (session_id, role, content, tool_calls, tool_name, status, prompt_eval_count, eval_count, created_at, context, opening, recall_at, recalled, log_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')`
	sqlMessageColumns = `id, role, content, tool_calls, tool_name, status, prompt_eval_count, eval_count, created_at, context, opening, chars_before, msgs_before, recall_at, recalled, log_path, log_start, log_end`
	sqlMessageLogged  = `UPDATE messages SET log_path = ?, log_start = ?, log_end = ? WHERE id = ? AND session_id = ?`
	// The places this session's turns were logged in the given logs (?2, a
	// JSON list of paths).
	sqlLoggedIn       = `SELECT log_path, log_start, log_end FROM messages WHERE session_id = ?1 AND role = 'user' AND log_path IN (SELECT value FROM json_each(?2))`
	sqlMessagesOfSess = `SELECT ` + sqlMessageColumns + ` FROM messages WHERE session_id = ? ORDER BY id`
	// A page of a session's messages before ?2, newest first, by the
	// messages_by_session index.
	sqlMessagesBefore = `SELECT ` + sqlMessageColumns + ` FROM messages WHERE session_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3`
	// A session's messages after ?2 and before ?3, oldest first.
	sqlMessagesBetween = `SELECT ` + sqlMessageColumns + ` FROM messages WHERE session_id = ?1 AND id > ?2 AND id < ?3 ORDER BY id`
	// The session before one, as it stood when that one's first message was
	// stored (?1: that message's id, or beyond every id): the session of the
	// latest earlier message, and its last exchange before ?1. A snapshot by
	// message id, so it does not change while the session goes on, whatever
	// other sessions do meanwhile.
	sqlPreviousSession = `SELECT s.id, s.name, s.model, s.created_at,
		(SELECT created_at FROM messages WHERE session_id = s.id AND id < ?1 ORDER BY id DESC LIMIT 1),
		COALESCE((SELECT content FROM messages WHERE session_id = s.id AND id < ?1 AND role = 'user' ORDER BY id DESC LIMIT 1), ''),
		COALESCE((SELECT content FROM messages WHERE session_id = s.id AND id < ?1 AND role = 'assistant' AND content != '' ORDER BY id DESC LIMIT 1), '')
		FROM sessions s WHERE s.id = (SELECT session_id FROM messages WHERE id < ?1 AND session_id != ?2 ORDER BY id DESC LIMIT 1)`
	sqlFirstMessage   = `SELECT COALESCE(min(id), 9223372036854775807) FROM messages WHERE session_id = ?`
	sqlLastRequestGet = `SELECT last_request, fold_before FROM sessions WHERE id = ?`
	sqlLastRequestSet = `UPDATE sessions SET last_request = ?, fold_before = max(fold_before, ?) WHERE id = ?`
	sqlCalibrationGet = `SELECT chars_per_token FROM model_calibration WHERE model = ?`
	sqlCalibrationSet = `INSERT INTO model_calibration (model, chars_per_token, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(model) DO UPDATE SET chars_per_token = excluded.chars_per_token, updated_at = excluded.updated_at`
)

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var created, updated string
	err := row.Scan(&s.ID, &s.Name, &s.Model, &created, &updated, &s.Turns, &s.LastUser, &s.LastAssistant)
	if err != nil {
		return s, err
	}
	s.Status = sessionStatus(s)
	s.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	s.UpdatedAt, _ = time.Parse(time.RFC3339Nano, updated)
	return s, nil
}

func (st *Sessions) one(ctx context.Context, query string, args ...any) (Session, error) {
	s, err := scanSession(st.db.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return s, ErrNoSession
	}
	if err != nil {
		return s, fmt.Errorf("read session: %w", err)
	}
	return s, nil
}

// Get returns the session called name.
func (st *Sessions) Get(ctx context.Context, name string) (Session, error) {
	s, err := st.one(ctx, sqlSessionByName, name)
	if errors.Is(err, ErrNoSession) {
		return s, fmt.Errorf("%w %q (list them with: agent sessions list)", ErrNoSession, name)
	}
	return s, err
}

// Find returns the session called name, or else titled name, with its
// title: what a person names a session by in sessions show and delete. (A
// chat's --session is a name only: a new name that is some session's title
// starts a session, as it always did.)
func (st *Sessions) Find(ctx context.Context, name string) (Session, error) {
	s, err := st.one(ctx, sqlSessionByName, name)
	if errors.Is(err, ErrNoSession) {
		s, err = st.byTitle(ctx, name)
	} else if err == nil {
		var titled []Session
		if titled, err = st.withTitles(ctx, []Session{s}); err == nil {
			s = titled[0]
		}
	}
	if errors.Is(err, ErrNoSession) {
		return s, fmt.Errorf("%w %q (list them with: agent sessions list)", ErrNoSession, name)
	}
	return s, err
}

// Latest returns the most recently active session.
func (st *Sessions) Latest(ctx context.Context) (Session, error) {
	s, err := st.one(ctx, sqlSessionLatest)
	if errors.Is(err, ErrNoSession) {
		return s, fmt.Errorf("%w: there are no sessions yet (start one with: agent chat)", ErrNoSession)
	}
	return s, err
}

// Previous returns the session before s for the identity section: the
// session of the latest message stored before s's first one (any message,
// for a session with none yet), with its last exchange as of then.
func (st *Sessions) Previous(ctx context.Context, s Session) (Session, bool, error) {
	var first int64
	if err := st.db.QueryRowContext(ctx, sqlFirstMessage, s.ID).Scan(&first); err != nil {
		return Session{}, false, fmt.Errorf("read sessions: %w", err)
	}
	var p Session
	var created string
	var last sql.NullString
	err := st.db.QueryRowContext(ctx, sqlPreviousSession, first, s.ID).Scan(&p.ID, &p.Name, &p.Model, &created, &last, &p.LastUser, &p.LastAssistant)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, false, nil
	}
	if err != nil {
		return Session{}, false, fmt.Errorf("read sessions: %w", err)
	}
	p.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	p.UpdatedAt, _ = time.Parse(time.RFC3339Nano, last.String)
	return p, true, nil
}

// LastRequest returns the serialized last request sent in a session ("" if
// none), to measure how much of the next one it shares, and the session's
// fold point, where its window stops replaying recalled passages (the user
// messages with lower IDs are folded, fitHistory).
func (st *Sessions) LastRequest(ctx context.Context, s Session) (request string, foldBefore int64, err error) {
	err = st.db.QueryRowContext(ctx, sqlLastRequestGet, s.ID).Scan(&request, &foldBefore)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, nil
	}
	return request, foldBefore, err
}

// List returns up to limit sessions, most recent first.
func (st *Sessions) List(ctx context.Context, limit int) ([]Session, error) {
	list, err := st.list(ctx, sqlSessionList, limit)
	if err != nil {
		return nil, err
	}
	return st.withTitles(ctx, list)
}

// ListAnswered is List of the answered sessions only, with how many
// sessions (unanswered or empty) it leaves out.
func (st *Sessions) ListAnswered(ctx context.Context, limit int) ([]Session, int, error) {
	list, err := st.list(ctx, sqlSessionListReply, limit)
	if err == nil {
		list, err = st.withTitles(ctx, list)
	}
	if err != nil {
		return nil, 0, err
	}
	var hidden int
	if err := st.db.QueryRowContext(ctx, sqlSessionsNoReply).Scan(&hidden); err != nil {
		return nil, 0, fmt.Errorf("list sessions: %w", err)
	}
	return list, hidden, nil
}

func (st *Sessions) list(ctx context.Context, query string, limit int) ([]Session, error) {
	rows, err := st.db.QueryContext(ctx, query, limit)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Create starts a session called name, or named from the clock (in the
// machine's zone; Chat.StartSession uses the user's) when name is "".
func (st *Sessions) Create(ctx context.Context, name, model string) (Session, error) {
	if name == "" {
		return st.CreateAt(ctx, st.now(), model)
	}
	if err := ValidateSessionName(name); err != nil {
		return Session{}, err
	}
	now := st.now().UTC()
	ts := now.Format(time.RFC3339Nano)
	res, err := st.db.ExecContext(ctx, sqlSessionInsert, name, model, ts, ts)
	if err != nil {
		return Session{}, fmt.Errorf("create session %q: %w", name, err)
	}
	id, _ := res.LastInsertId()
	return Session{ID: id, Name: name, Model: model, CreatedAt: now, UpdatedAt: now, Status: SessionEmpty}, nil
}

// CreateAt starts a session named from at's wall clock ("2026-11-22-0930").
// If that is taken, the database picks the next free suffix ("-2", "-3", …)
// in the same INSERT, so any number of chats started in one minute, by any
// number of processes, get distinct names without a retry loop.
func (st *Sessions) CreateAt(ctx context.Context, at time.Time, model string) (Session, error) {
	now := st.now().UTC()
	ts := now.Format(time.RFC3339Nano)
	base := at.Format("2006-01-02-1504")
	var s Session
	var created, updated string
	err := st.db.QueryRowContext(ctx, sqlSessionInsertFree, base, model, ts, ts).Scan(&s.ID, &s.Name, &created, &updated)
	if err != nil {
		return Session{}, fmt.Errorf("create session %s: %w", base, err)
	}
	s.Model, s.CreatedAt, s.UpdatedAt, s.Status = model, now, now, SessionEmpty
	return s, nil
}

// Named returns the session called name, creating it if it does not exist.
func (st *Sessions) Named(ctx context.Context, name, model string) (Session, error) {
	s, err := st.one(ctx, sqlSessionByName, name)
	if errors.Is(err, ErrNoSession) {
		s, err = st.Create(ctx, name, model)
		if isUnique(err) { // created by another process meanwhile
			return st.one(ctx, sqlSessionByName, name)
		}
	}
	return s, err
}

// isUnique reports a UNIQUE constraint violation: the name is taken.
func isUnique(err error) bool { return sqlitedb.IsUnique(err) }

// ValidateSessionName keeps names safe to print and to put in a log heading.
func ValidateSessionName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("%w: session name must be 1 to 64 characters", ErrInvalidInput)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("%w: session name %q may use only letters, digits, '-', '_' and '.'", ErrInvalidInput, name)
		}
	}
	return nil
}

// Append stores one message and marks the session active. Each call is its
// own transaction, so a message reported as stored survives a crash.
func (st *Sessions) Append(ctx context.Context, s *Session, m StoredMessage) (int64, error) {
	return st.appendWith(ctx, s, m, nil, nil)
}

// AppendRequest is Append for a user's message that is about to be sent,
// its content and context redacted already (Chat.seal): the request (window.RequestText) is recorded as the session's last in the same
// transaction, one commit instead of two on the turn's path, and with it
// where its window stops replaying recalled passages (see LastRequest; it
// only ever moves forward).
func (st *Sessions) AppendRequest(ctx context.Context, s *Session, m StoredMessage, request string, foldBefore int64) (int64, error) {
	return st.appendWith(ctx, s, m, &sentRequest{request, foldBefore}, nil)
}

// AppendReply is Append for a turn's final reply, redacted already: where the turn was
// logged (logTurn) is recorded with its user's message userID in the same
// transaction.
func (st *Sessions) AppendReply(ctx context.Context, s *Session, m StoredMessage, userID int64, logged LogSpan) (int64, error) {
	return st.appendWith(ctx, s, m, nil, &loggedTurn{userID, logged})
}

// loggedTurn is what AppendReply records with the reply.
type loggedTurn struct {
	userID int64
	span   LogSpan
}

// redactContext redacts a message's context in its two parts, so that
// recallAt still says where the recalled passages begin (0: none).
func redactContext(context string, recallAt int, redact func(what, s string) string) (string, int) {
	if recallAt <= 0 || recallAt > len(context) {
		return redact("context", context), 0
	}
	note := redact("context", context[:recallAt])
	return note + redact("recalled", context[recallAt:]), len(note)
}

// sentRequest is what AppendRequest records with the message.
type sentRequest struct {
	text       string
	foldBefore int64
}

func (st *Sessions) appendWith(ctx context.Context, s *Session, m StoredMessage, request *sentRequest, logged *loggedTurn) (int64, error) {
	calls := ""
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return 0, err
		}
		calls = string(b)
	}
	if m.Status == "" {
		m.Status = StatusComplete
	}
	// Secrets never land in state.db: not in a message, its tool calls or
	// the recalled context. A turn's message (its context, its request
	// text) and reply come redacted: the turn redacts each text once.
	calls, _ = secrets.Redact(calls)
	if request == nil && logged == nil {
		m.Content, _ = secrets.Redact(m.Content)
		m.Context, m.RecallAt = redactContext(m.Context, m.RecallAt, func(_, s string) string { s, _ = secrets.Redact(s); return s })
	}
	recalled, _ := secrets.Redact(string(m.Recalled))
	now := st.now().UTC().Format(time.RFC3339Nano)
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store message: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, sqlMessageInsert, s.ID, m.Role, m.Content, calls, m.ToolName, m.Status, m.PromptEvalCount, m.EvalCount, now, m.Context, m.Opening, m.RecallAt, recalled)
	if err != nil {
		return 0, fmt.Errorf("store message: %w", err)
	}
	if _, err := tx.ExecContext(ctx, sqlSessionTouch, now, s.Model, m.Role, s.ID); err != nil {
		return 0, fmt.Errorf("store message: %w", err)
	}
	if request != nil {
		if _, err := tx.ExecContext(ctx, sqlLastRequestSet, request.text, request.foldBefore, s.ID); err != nil {
			return 0, fmt.Errorf("store message: %w", err)
		}
	}
	if logged != nil && logged.span.Path != "" { // not logged: the row says so already
		if _, err := tx.ExecContext(ctx, sqlMessageLogged, logged.span.Path, logged.span.Start, logged.span.End, logged.userID, s.ID); err != nil {
			return 0, fmt.Errorf("store message: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store message: %w", err)
	}
	return res.LastInsertId()
}

// LoggedIn returns where the session's turns were logged in the given logs
// (paths relative to the workspace): what recall needs to tell the
// session's own logged turns from other memory.
func (st *Sessions) LoggedIn(ctx context.Context, s Session, paths []string) ([]LogSpan, error) {
	if s.ID == 0 || len(paths) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(paths)
	if err != nil {
		return nil, err
	}
	rows, err := st.db.QueryContext(ctx, sqlLoggedIn, s.ID, string(list))
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", s.Name, err)
	}
	defer rows.Close()
	var out []LogSpan
	for rows.Next() {
		var l LogSpan
		if err := rows.Scan(&l.Path, &l.Start, &l.End); err != nil {
			return nil, fmt.Errorf("read session %s: %w", s.Name, err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Messages returns a session's whole transcript, oldest first.
func (st *Sessions) Messages(ctx context.Context, s Session) ([]StoredMessage, error) {
	return st.messages(ctx, s, nil, sqlMessagesOfSess, s.ID)
}

func (st *Sessions) messages(ctx context.Context, s Session, out []StoredMessage, query string, args ...any) ([]StoredMessage, error) {
	rows, err := st.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", s.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var m StoredMessage
		var calls, created, recalled string
		var logPath sql.NullString
		var logStart, logEnd int
		if err := rows.Scan(&m.ID, &m.Role, &m.Content, &calls, &m.ToolName, &m.Status, &m.PromptEvalCount, &m.EvalCount, &created, &m.Context, &m.Opening, &m.CharsBefore, &m.MsgsBefore, &m.RecallAt, &recalled, &logPath, &logStart, &logEnd); err != nil {
			return nil, fmt.Errorf("read session %s: %w", s.Name, err)
		}
		m.Recalled = StoredRefs(recalled) // scanned as a string: a named type costs a reflection
		if logPath.Valid && m.Role == "user" {
			m.Logged, m.LogKnown = LogSpan{Path: logPath.String, Start: logStart, End: logEnd}, true
		}
		if calls != "" {
			if err := json.Unmarshal([]byte(calls), &m.ToolCalls); err != nil {
				return nil, fmt.Errorf("read session %s: message %d: %w", s.Name, m.ID, err)
			}
		}
		m.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Between returns a session's messages after the one with ID after and
// before the one with ID before, oldest first.
func (st *Sessions) Between(ctx context.Context, s Session, after, before int64) ([]StoredMessage, error) {
	return st.messages(ctx, s, nil, sqlMessagesBetween, s.ID, after, before)
}

// tailPage is how many messages Tail reads a query.
const tailPage = 256

// Tail returns the end of a session's transcript, oldest first: whole
// exchanges, back to the first user message before which the words of the
// user and assistant messages it returns pass minChars characters (or the
// whole session, if shorter). A history window of at most minChars/6
// tokens (estimator's most characters a token) then never reaches past its
// first exchange, and the window's blocks are found from CharsBefore, so a
// turn reads the same few pages on day 1 and day 300 of a session.
func (st *Sessions) Tail(ctx context.Context, s Session, minChars int) ([]StoredMessage, error) {
	var rev []StoredMessage
	chars := 0
	for before := int64(math.MaxInt64); ; {
		page, err := st.messages(ctx, s, nil, sqlMessagesBefore, s.ID, before, tailPage)
		if err != nil {
			return nil, err
		}
		for _, m := range page {
			rev = append(rev, m)
			if m.Role == "user" || m.Role == "assistant" {
				chars += utf8.RuneCountInString(m.Content)
			}
			if m.Role == "user" && chars > minChars {
				slices.Reverse(rev)
				return rev, nil
			}
		}
		if len(page) < tailPage {
			slices.Reverse(rev)
			return rev, nil
		}
		before = page[len(page)-1].ID
	}
}

// CharsPerToken returns the calibrated ratio for a model, or 0 if none yet.
func (st *Sessions) CharsPerToken(ctx context.Context, model string) (float64, error) {
	var r float64
	err := st.db.QueryRowContext(ctx, sqlCalibrationGet, model).Scan(&r)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return r, err
}

// SetCharsPerToken records a model's calibrated ratio.
func (st *Sessions) SetCharsPerToken(ctx context.Context, model string, r float64) error {
	_, err := st.db.ExecContext(ctx, sqlCalibrationSet, model, r, st.now().UTC().Format(time.RFC3339))
	return err
}
