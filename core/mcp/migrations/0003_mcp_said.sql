-- A failure in the user's terms, said from the typed error when it
-- happened (said.go), beside the whole chain (last_error): a later process
-- shows it as it was said, without reading the chain's text back. '' for a
-- failure recorded before: the chain is shown whole.
ALTER TABLE mcp_servers ADD COLUMN said TEXT NOT NULL DEFAULT '';
