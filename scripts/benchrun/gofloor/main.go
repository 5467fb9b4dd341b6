// Command gofloor is the search benchmark's second floor: the least a Go
// program built on the prescribed driver (mattn/go-sqlite3 through
// database/sql) does to answer a search — open index.db, run the statement
// statements given as the second argument (those of one search, separated
// by ";\n"), print each row tab-separated. agent's
// search does all of this and more; the gap between this floor and the
// sqlite3 CLI is the price of the Go runtime and cgo, not of agent's code.
// Built with -tags stackfloor it links the rest of the prescribed libraries
// too (stack.go), and their start-up cost.
//
//	gofloor INDEX.DB SQL
//	gofloor -turn INDEX.DB SQL STATE-DIR OLLAMA-URL   (turn.go)
package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	if len(os.Args) == 6 && os.Args[1] == "-turn" {
		if err := turnFloor(os.Args[2], os.Args[3], os.Args[4], os.Args[5]); err != nil {
			fmt.Fprintln(os.Stderr, "gofloor:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gofloor INDEX.DB SQL")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
}

func run(path, queries string) error {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	out := bufio.NewWriter(os.Stdout)
	// Several statements, one per sub-query of a search, separated by ";\n".
	for _, q := range strings.Split(strings.TrimSuffix(queries, ";"), ";\n") {
		if err := runOne(db, q, out); err != nil {
			return err
		}
	}
	return out.Flush()
}

func runOne(db *sql.DB, query string, out *bufio.Writer) error {
	rows, err := db.Query(query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			if i > 0 {
				out.WriteByte('\t')
			}
			out.Write(v)
		}
		out.WriteByte('\n')
	}
	return rows.Err()
}
