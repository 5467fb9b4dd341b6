package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

// unknownCommand is the usage error for a word that names no subcommand of
// cmd, with the nearest one when a typo explains it (gh's "did you mean").
func unknownCommand(cmd *cli.Command, word string) error {
	path := cmd.FullName()
	if path == "" {
		path = cmd.Name
	}
	if near := nearestCommand(cmd, word); near != "" {
		return usagef("unknown command %q for %q; did you mean %s? (run: %s --help)", word, path, near, path)
	}
	return usagef("unknown command %q for %q (run: %s --help)", word, path, path)
}

// nearestCommand is the subcommand of cmd whose name (or alias) is within
// two edits of word, or that word starts, if exactly one is nearest.
func nearestCommand(cmd *cli.Command, word string) string {
	var names []named
	for _, sub := range cmd.Commands {
		if sub.Hidden {
			continue
		}
		for _, name := range append([]string{sub.Name}, sub.Aliases...) {
			names = append(names, named{name, sub.Name})
		}
	}
	return nearest(word, names)
}

// named is one name a command or flag answers to, and the name it is told by.
type named struct{ name, canonical string }

// nearest is the canonical name of the one entry within two edits of word
// (or that word, three letters or more, starts); "" when none or a tie.
func nearest(word string, names []named) string {
	word = strings.ToLower(word)
	best, bestD, ties := "", 3, 0
	for _, n := range names {
		d := editDistance(word, n.name)
		if len(word) >= 3 && strings.HasPrefix(n.name, word) {
			d = 1
		}
		switch {
		case d < bestD:
			best, bestD, ties = n.canonical, d, 1
		case d == bestD && n.canonical != best:
			ties++
		}
	}
	if ties != 1 {
		return ""
	}
	return best
}

// editDistance counts the single-letter insertions, deletions, changes and
// swaps of two neighbours that turn a into b (a swap is the commonest typo:
// chta).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// takesValue reports whether the root flag called name (any of its names)
// takes the next word as its value: every flag but a boolean one.
func takesValue(root *cli.Command, name string) bool {
	for _, f := range root.Flags {
		if slices.Contains(f.Names(), name) {
			_, isBool := f.(*cli.BoolFlag)
			return !isBool
		}
	}
	return false
}

// checkCommandWord finds the command word in args (after the global flags)
// and refuses it when it names no command, before flags meant for that
// command are parsed by the root: `agent remnd x --at +1h` is an unknown
// command, not an unknown flag --at.
func checkCommandWord(root *cli.Command, args []string) error {
	_, err := commandWord(root, args)
	return err
}

// helpArgs turns `agent help X Y` into `agent X Y --help`, as gh reads it
// (the built-in help command is hidden: it would list itself everywhere);
// other args are returned as they are.
func helpArgs(root *cli.Command, args []string) []string {
	i, err := commandWord(root, args)
	if err != nil || i < 0 || args[i] != "help" {
		return args
	}
	out := append(append([]string{}, args[:i]...), args[i+1:]...)
	return append(out, "--help")
}

// commandWord is the index in args of the command word (-1: none), or why
// it names no command.
func commandWord(root *cli.Command, args []string) (int, error) {
	for i := 1; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			return -1, nil
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			name := strings.TrimLeft(w, "-")
			if !strings.Contains(name, "=") && takesValue(root, name) {
				i++
			}
			continue
		}
		if w == "help" || w == completionCommand || root.Command(w) != nil {
			return i, nil
		}
		if i > 1 && strings.HasPrefix(args[i-1], "-") && !rootHasFlag(root, flagWord(args[i-1])) {
			// `agent --hme /tmp memory status`: the unknown flag, not the
			// value it was meant to take, is the mistake.
			return i, usagef("%s (%q after it was taken for a command)", unknownFlag(root, args[i-1]), w)
		}
		return i, unknownCommand(root, w)
	}
	return -1, nil
}

// completionCommand is urfave/cli's completion command, which it adds to
// the root only when it runs.
const completionCommand = "completion"

// flagWord is the flag a word names: "--jsn=1" is "jsn".
func flagWord(w string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
	return name
}

func rootHasFlag(root *cli.Command, name string) bool {
	for _, f := range root.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return name == "help" || name == "h" || name == "version" || name == "v"
}

// unknownFlag names a flag nobody defined as it was typed (--jsn, not
// -jsn), with the nearest flag of cmd or the global ones when a typo
// explains it.
func unknownFlag(cmd *cli.Command, typed string) string {
	name := flagWord(typed)
	typed, _, _ = strings.Cut(typed, "=")
	if near := nearestFlag(cmd, name); near != "" {
		return fmt.Sprintf("unknown flag %s; did you mean %s?", typed, flagName(near))
	}
	return "unknown flag " + typed
}

// nearestFlag is the flag of cmd or of its parents within two edits of
// name (or that name starts), if exactly one is nearest.
func nearestFlag(cmd *cli.Command, name string) string {
	var names []named
	for _, c := range cmd.Lineage() {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if len(n) > 1 { // -k is no typo's neighbour
					names = append(names, named{n, f.Names()[0]})
				}
			}
		}
	}
	return nearest(name, names)
}

// valueKind says in the user's words what kind of value a flag wanted, from
// the parser's reason for refusing one (strconv's, time's and urfave/cli's
// wording, pinned by go.mod and by transcript tests); "" when unknown. Only
// the kinds of flag the commands have (int, bool, duration) are told.
func valueKind(reason string) string {
	switch {
	case strings.Contains(reason, "strconv.ParseInt"):
		if strings.Contains(reason, "value out of range") {
			return "a smaller whole number"
		}
		return "a whole number"
	case reason == "parse error": // urfave/cli's BoolFlag drops strconv.ParseBool's words
		return "true or false"
	case strings.Contains(reason, "time: "):
		return "a duration such as 90s, 5m or 2h"
	}
	return ""
}

// flagName is a flag as the user types it: -k, --num-ctx.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknownFlagUsage is the usage error for a flag cmd does not have, f as
// urfave/cli names it (one dash, "-jsn"): named as the user typed it, with
// the nearest flag when a typo explains it, and, for a word that may be a
// value starting with '-', how to pass it.
func (a *app) unknownFlagUsage(cmd *cli.Command, f string) string {
	typed := f
	for _, w := range a.args {
		if strings.HasPrefix(w, "-") && flagWord(w) == strings.TrimLeft(f, "-") {
			typed, _, _ = strings.Cut(w, "=")
			break
		}
	}
	msg := unknownFlag(cmd, typed)
	if strings.Contains(msg, "did you mean") {
		return msg
	}
	return fmt.Sprintf("%s; if %s is a value, put -- before it: %s … -- %s", msg, typed, cmd.FullName(), typed)
}
