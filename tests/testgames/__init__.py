"""Games that exist only for the tests. A host loads one with
`--game-module tests.testgames.<module>:RULES`; the room processes import it
by that name too (Ray gives them the driver's working directory, the
repository root, on sys.path)."""
