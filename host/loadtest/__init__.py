"""`tablehost loadtest`: bot players driven from Ray load agents spread over
a cluster's nodes, a live display, and a JSON report and plot of the run.
The players' own driving logic is clients.loaddriver (no Ray); this package
is the agents that run it, the command, the report and the plot."""
