package jobs

import "embed"

// Migrations holds this package's state.db schema, applied in file-name order
// by the workspace opener (core). SQL for jobs lives only here.
//
//go:embed migrations/*.sql
var Migrations embed.FS
