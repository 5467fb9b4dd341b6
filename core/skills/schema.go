package skills

import "embed"

// Migrations holds this package's state.db schema, applied in file-name
// order by the workspace opener (core). SQL for skill revisions lives only
// here and in queries.go.
//
//go:embed migrations/*.sql
var Migrations embed.FS
