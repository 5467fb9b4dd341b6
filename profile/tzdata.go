package profile

// The time zone database is compiled in so user.timezone validates the same
// way on a machine without /usr/share/zoneinfo (containers, minimal installs).
import _ "time/tzdata"
