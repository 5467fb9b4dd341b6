package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"agent/core"
	"agent/core/skills"
	"agent/memory/printable"
	"agent/soul/revisions"
)

func (a *app) skillsCommand() *cli.Command {
	return &cli.Command{
		Name:  "skills",
		Usage: "skills: instructions the assistant loads when a task needs them (<home>/skills, AGENT_SKILLS_PATH)",
		Commands: []*cli.Command{
			{
				Name:   "list",
				Usage:  "every skill found: usable, shadowed by one of the same name, or invalid and why",
				Action: a.withSkills(0, 0, a.runSkillsList),
			},
			{
				Name:      "show",
				Usage:     "print a skill's SKILL.md (--json: with its path and resource files)",
				ArgsUsage: "NAME",
				Action:    a.withSkills(1, 1, a.runSkillsShow),
			},
			{
				Name:      "new",
				Usage:     "scaffold <home>/skills/NAME/SKILL.md and open it in $VISUAL or $EDITOR (else vi)",
				ArgsUsage: "NAME",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "description", Usage: "what the skill does and when to use it"},
					&cli.BoolFlag{Name: "no-edit", Usage: "write the scaffold without opening an editor"},
				},
				Action: a.withSkills(1, 1, a.runSkillsNew),
			},
			{
				Name:      "edit",
				Usage:     "edit a workspace skill's SKILL.md in $VISUAL or $EDITOR; saved as a user revision",
				ArgsUsage: "NAME",
				Action:    a.withSkills(1, 1, a.runSkillsEdit),
			},
			{
				Name:      "history",
				Usage:     "list a workspace skill's revisions, newest first",
				ArgsUsage: "NAME",
				Action:    a.withSkills(1, 1, a.runSkillsHistory),
			},
			{
				Name:      "diff",
				Usage:     "diff two revisions of a skill; one: REV against the current; none: the last change",
				ArgsUsage: "NAME [REV] [REV]",
				Action:    a.withSkills(1, 3, a.runSkillsDiff),
			},
			{
				Name:      "revert",
				Usage:     "restore revision REV of a skill (recorded as a new revision; brings back a removed one)",
				ArgsUsage: "NAME REV",
				Action:    a.withSkills(2, 2, a.runSkillsRevert),
			},
			{
				Name:      "remove",
				Usage:     "remove a workspace skill's SKILL.md (kept in its history: revert brings it back)",
				ArgsUsage: "NAME",
				Action:    a.withSkills(1, 1, a.runSkillsRemove),
			},
		},
	}
}

// skillsCall is what a skills subcommand works with: the workspace, its
// skill store, the skill's name (when the command takes one) and the
// revision numbers after it.
type skillsCall struct {
	cmd   *cli.Command
	ws    *core.Workspace
	store *skills.Store
	name  string
	revs  []int64
}

// withSkills checks the arguments (NAME first when min > 0, then revision
// numbers, between min and max arguments in all) before opening the
// workspace, so a usage error wins over a missing workspace.
func (a *app) withSkills(min, max int, run func(ctx context.Context, c skillsCall) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		args := cmd.Args().Slice()
		if n := len(args); n < min || n > max {
			if max == 0 {
				return usagef("%s takes no arguments", strings.TrimPrefix(cmd.FullName(), "agent "))
			}
			return usagef("usage: %s %s", cmd.FullName(), cmd.ArgsUsage)
		}
		c := skillsCall{cmd: cmd}
		if min > 0 {
			c.name = args[0]
			if err := skills.ValidName(c.name); err != nil {
				return usagef("%v", err)
			}
			for _, s := range args[1:] {
				id, err := strconv.ParseInt(s, 10, 64)
				if err != nil || id <= 0 {
					return usagef("REV must be a revision number, not %q (see: agent skills history %s)", s, c.name)
				}
				c.revs = append(c.revs, id)
			}
		}
		ws, err := a.openWorkspace(ctx)
		if err != nil {
			return err
		}
		defer ws.Close()
		c.ws, c.store = ws, skills.NewStore(ws.State, ws.Home, a.now)
		return run(ctx, c)
	}
}

// skillJSON is one row of `agent skills list --json` and the head of
// `agent skills show --json`; part of the CLI contract (docs/cli-skills.md).
type skillJSON struct {
	Name        string `json:"name"`
	State       string `json:"state"`  // ok, shadowed or invalid
	Source      string `json:"source"` // workspace or AGENT_SKILLS_PATH
	Path        string `json:"path"`
	Description string `json:"description"`
	ShadowedBy  string `json:"shadowed_by,omitempty"`
	Reason      string `json:"reason,omitempty"` // why an invalid skill is left out
}

type skillShowJSON struct {
	skillJSON
	Files   []string `json:"files"`
	Content string   `json:"content"`
}

func skillSource(workspace bool) string {
	if workspace {
		return "workspace"
	}
	return skills.PathEnv
}

// skillRows lists the catalog: usable skills by name, then the shadowed,
// then the invalid ones.
func skillRows(cat skills.Catalog, home string) []skillJSON {
	rows := make([]skillJSON, 0, len(cat.Skills)+len(cat.Shadowed)+len(cat.Invalid))
	for _, s := range cat.Skills {
		rows = append(rows, skillJSON{Name: s.Name, State: "ok", Source: skillSource(s.Workspace), Path: s.Path(), Description: s.Description})
	}
	for _, s := range cat.Shadowed {
		rows = append(rows, skillJSON{Name: s.Name, State: "shadowed", Source: skillSource(s.Workspace), Path: s.Path(), Description: s.Description, ShadowedBy: s.By})
	}
	wsDir := skills.Roots(home, "")[0].Dir
	for _, p := range cat.Invalid {
		rows = append(rows, skillJSON{Name: p.Name, State: "invalid", Source: skillSource(strings.HasPrefix(p.Path, wsDir+"/")), Path: p.Path, Reason: p.Reason})
	}
	return rows
}

func (a *app) runSkillsList(ctx context.Context, c skillsCall) error {
	rows := skillRows(skills.Discover(skills.DefaultRoots(c.ws.Home)), c.ws.Home)
	if a.jsonOut {
		return a.writeJSON(rows)
	}
	if len(rows) == 0 {
		a.infof("no skills in %s or %s (create one: agent skills new NAME)", skills.Roots(c.ws.Home, "")[0].Dir, skills.PathEnv)
		return nil
	}
	if a.io.OutTTY {
		tw := a.newTable("NAME", "STATE", "SOURCE", "DESCRIPTION")
		for _, r := range rows {
			tw.row(r.Name, r.State, r.Source, clipCell(skillNote(r), 100))
		}
		return tw.flush()
	}
	for _, r := range rows {
		if err := writeTSV(a.io.Out, r.Name, r.State, r.Path, skillNote(r)); err != nil {
			return err
		}
	}
	return nil
}

// skillNote is the last column of a listing: the description, or for a
// skill that is not usable, why.
func skillNote(r skillJSON) string {
	switch r.State {
	case "shadowed":
		return "hidden by " + r.ShadowedBy + ": " + r.Description
	case "invalid":
		return r.Reason
	}
	return r.Description
}

// clipCell shortens a table cell to width runes.
func clipCell(s string, width int) string {
	return printable.Cut(printable.OneLine(s), width)
}

// findSkill finds a usable skill by name, first recording an editor's
// change to a workspace one (as every reader of SOUL.md does).
func (a *app) findSkill(ctx context.Context, c skillsCall) (skills.Skill, error) {
	if err := c.store.Sync(ctx, c.name); err != nil {
		return skills.Skill{}, err
	}
	return skills.Discover(skills.DefaultRoots(c.ws.Home)).Find(c.name)
}

func (a *app) runSkillsShow(ctx context.Context, c skillsCall) error {
	s, err := a.findSkill(ctx, c)
	if err != nil {
		return err
	}
	if !a.jsonOut {
		_, err = fmt.Fprint(a.io.Out, s.Content)
		return err
	}
	files, more, err := skills.Files(s)
	if err != nil {
		return err
	}
	if more > 0 {
		a.warnf("skill %s has %d more files than listed", s.Name, more)
	}
	if files == nil {
		files = []string{}
	}
	return a.writeJSON(skillShowJSON{
		skillJSON: skillJSON{Name: s.Name, State: "ok", Source: skillSource(s.Workspace), Path: s.Path(), Description: s.Description},
		Files:     files, Content: s.Content,
	})
}

// skillScaffold is the body `agent skills new` starts from.
const skillScaffold = `# %s

Steps to follow when this skill applies:

1. …

Files in this directory that the steps mention can be read with skill_read.
`

func (a *app) runSkillsNew(ctx context.Context, c skillsCall) error {
	cat := skills.Discover(skills.DefaultRoots(c.ws.Home))
	if s, err := cat.Find(c.name); err == nil && s.Workspace {
		return &codedError{code: exitFailure, err: fmt.Errorf("skill %s already exists in %s (edit it: agent skills edit %s)", c.name, s.Dir, c.name)}
	} else if err == nil {
		a.warnf("the new skill will hide the one of the same name in %s", s.Dir)
	}
	for _, p := range cat.Invalid {
		if p.Name == c.name && strings.HasPrefix(p.Path, c.store.Dir()+"/") {
			return &codedError{code: exitFailure, err: fmt.Errorf("skill %s already exists in %s but is invalid: %s", c.name, p.Path, p.Reason)}
		}
	}
	desc := strings.TrimSpace(c.cmd.String("description"))
	if desc == "" {
		desc = "Say what this skill does and when to use it."
	}
	if err := skills.ValidDescription(desc); err != nil {
		return usagef("--description: %v", err)
	}
	content, err := skills.Render("", c.name, desc, fmt.Sprintf(skillScaffold, c.name))
	if err != nil {
		return err
	}
	var ed *edited
	if !c.cmd.Bool("no-edit") {
		if ed, err = a.editCopy(ctx, skills.FileName, content); err != nil {
			return fmt.Errorf("%w; no skill created", err)
		}
		defer ed.done()
		if content = ed.text; strings.TrimSpace(content) == "" {
			a.infof("the file was emptied; no skill created")
			return nil
		}
	}
	rev, err := c.store.SaveFile(ctx, c.name, content, skills.User, "agent skills new")
	if err != nil {
		if ed != nil {
			ed.keep()
			return fmt.Errorf("%w (your text is kept at %s)", err, ed.path)
		}
		return err
	}
	a.infof("created %s (revision %d)", c.store.Dir()+"/"+c.name+"/"+skills.FileName, rev.ID)
	return nil
}

func (a *app) runSkillsEdit(ctx context.Context, c skillsCall) error {
	s, err := a.workspaceSkill(ctx, c)
	if err != nil {
		return err
	}
	ed, err := a.editCopy(ctx, skills.FileName, s.Content)
	if err != nil {
		return fmt.Errorf("%w; %s left unchanged", err, s.Path())
	}
	defer ed.done()
	if ed.text == s.Content {
		a.infof("no changes; %s left as it was", s.Path())
		return nil
	}
	now, err := a.workspaceSkill(ctx, c)
	if err == nil && now.Content != s.Content {
		err = fmt.Errorf("%s changed while you were editing", s.Path())
	}
	if err == nil {
		_, err = c.store.SaveFile(ctx, c.name, ed.text, skills.User, "agent skills edit")
	}
	if err != nil {
		ed.keep()
		return fmt.Errorf("%w; your edit is kept at %s", err, ed.path)
	}
	return nil
}

// workspaceSkill is the usable skill c.name, which must be the workspace's
// own: agent edits and removes only what lives in <home>/skills.
func (a *app) workspaceSkill(ctx context.Context, c skillsCall) (skills.Skill, error) {
	s, err := a.findSkill(ctx, c)
	if err != nil {
		return skills.Skill{}, err
	}
	if !s.Workspace {
		return skills.Skill{}, &codedError{code: exitFailure, err: fmt.Errorf("skill %s lives in %s (from %s), not in %s; agent changes only its workspace's skills", c.name, s.Dir, skills.PathEnv, c.store.Dir())}
	}
	return s, nil
}

func (a *app) runSkillsHistory(ctx context.Context, c skillsCall) error {
	hist, err := c.store.History(ctx, c.name)
	if err != nil {
		return err
	}
	if len(hist) == 0 {
		return &codedError{code: exitNotFound, err: fmt.Errorf("skill %s has no history: it is not in %s and never was", c.name, c.store.Dir())}
	}
	return a.printRevisions(hist)
}

// runSkillsDiff compares two revisions of a skill, as soul diff does: with
// one, REV against the latest; with none, the last change. A removal
// compares as an empty file.
func (a *app) runSkillsDiff(ctx context.Context, c skillsCall) error {
	hist, err := c.store.History(ctx, c.name)
	if err != nil {
		return err
	}
	if len(hist) == 0 {
		return &codedError{code: exitNotFound, err: fmt.Errorf("skill %s has no history: it is not in %s and never was", c.name, c.store.Dir())}
	}
	from, to := int64(0), hist[0].ID
	switch len(c.revs) {
	case 0:
		if len(hist) < 2 {
			return a.printSoulDiff(to, to, "")
		}
		from = hist[1].ID
	case 1:
		from = c.revs[0]
	default:
		from, to = c.revs[0], c.revs[1]
	}
	old, err := c.store.Get(ctx, c.name, from)
	if err != nil {
		return err
	}
	cur, err := c.store.Get(ctx, c.name, to)
	if err != nil {
		return err
	}
	label := func(id int64) string { return c.name + "/" + skills.FileName + "@" + strconv.FormatInt(id, 10) }
	return a.printSoulDiff(from, to, revisions.Diff(label(from), old.Content, label(to), cur.Content))
}

func (a *app) runSkillsRevert(ctx context.Context, c skillsCall) error {
	rev, err := c.store.Revert(ctx, c.name, c.revs[0])
	if err != nil {
		return err
	}
	a.infof("skill %s restored from revision %d (now revision %d)", c.name, c.revs[0], rev.ID)
	return nil
}

func (a *app) runSkillsRemove(ctx context.Context, c skillsCall) error {
	// An invalid SKILL.md may be removed too; one from AGENT_SKILLS_PATH
	// is not agent's to remove.
	if _, err := a.workspaceSkill(ctx, c); err != nil && !errors.Is(err, skills.ErrInvalid) {
		return err
	}
	hist, err := c.store.History(ctx, c.name)
	if err != nil {
		return err
	}
	out, err := c.store.Remove(ctx, c.name, skills.User, "agent skills remove")
	if err != nil {
		return err
	}
	a.infof("removed skill %s (revision %d; bring it back with: agent skills revert %s %d)", c.name, out.Revision.ID, c.name, hist[0].ID)
	if len(out.Left) > 0 {
		a.warnf("its other files stay in %s: %s", c.store.Dir()+"/"+c.name, strings.Join(out.Left, ", "))
	}
	return nil
}
