package importer

import "embed"

// Migrations holds this package's state.db schema, applied in file-name order
// by the workspace opener (core).
//
//go:embed migrations/*.sql
var Migrations embed.FS
