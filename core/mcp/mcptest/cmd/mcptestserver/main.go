// Command mcptestserver runs the mcptest MCP server on stdio, for shell
// scripts and benchmarks that need integrations configured (see
// mcptest.Main for its environment variables).
package main

import "agent/core/mcp/mcptest"

func main() { mcptest.Main() }
