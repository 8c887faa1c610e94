"""The front door (lobby and admin services), the host's configuration, the
`tablehost` command and the demo narrator."""
