package reminders

import "embed"

// Migrations holds this package's state.db schema, applied in file-name order
// by the workspace opener (core). SQL for reminders lives only here.
//
//go:embed migrations/*.sql
var Migrations embed.FS
