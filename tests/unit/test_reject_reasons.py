"""A reject reason is one enum with one name everywhere: the host's Reason
and the wire's tablehost.v1.RejectReason list the same reasons, mapped by name."""

from tablehost.actors.table_service import WIRE_REASON
from tablehost.games.engine.errors import Reason
from tablehost.v1 import table_pb2


def test_every_reason_has_the_wire_value_of_its_name_and_the_wire_has_no_other() -> None:
    wire_names = {name for name in table_pb2.RejectReason.keys() if name != "REJECT_REASON_UNSPECIFIED"}
    assert {f"REJECT_REASON_{reason.name}" for reason in Reason} == wire_names
    assert all(table_pb2.RejectReason.Name(WIRE_REASON[reason]) == f"REJECT_REASON_{reason.name}" for reason in Reason)
