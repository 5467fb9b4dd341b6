package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
)

// turnFloor is the least a chat turn does besides its recall, with nothing
// of agent's own logic: open state.db (WAL), ask the server for its version
// and the model (two round trips), store the user's message durably, send
// the request and read the reply, store the reply durably. With the recall
// statements run first, the time of `gofloor -turn` is the floor of a
// one-shot turn on this stack; agent's turn does all this and more
// (context assembly, the log, the session).
//
//	gofloor -turn INDEX.DB SQL STATE-DIR OLLAMA-URL
func turnFloor(index, queries, dir, ollama string) error {
	if err := run(index, queries); err != nil {
		return err
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "floor.db")+"?_journal_mode=WAL&_busy_timeout=10000")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS m (id INTEGER PRIMARY KEY, role TEXT, content TEXT)`); err != nil {
		return err
	}
	if err := roundTrip(http.MethodGet, ollama+"/api/version", nil); err != nil {
		return err
	}
	if err := roundTrip(http.MethodPost, ollama+"/api/show", []byte(`{"model":"llama3.2:latest"}`)); err != nil {
		return err
	}
	if _, err := db.Exec(`INSERT INTO m (role, content) VALUES ('user', 'how do I list files sorted by size')`); err != nil {
		return err
	}
	body := []byte(`{"model":"llama3.2:latest","messages":[{"role":"user","content":"how do I list files sorted by size"}],"stream":true}`)
	if err := roundTrip(http.MethodPost, ollama+"/api/chat", body); err != nil {
		return err
	}
	_, err = db.Exec(`INSERT INTO m (role, content) VALUES ('assistant', 'ok')`)
	return err
}

func roundTrip(method, url string, body []byte) error {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return nil
}
