from tablehost.v1 import lobby_pb2 as _lobby_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TournamentFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_FORMAT_UNSPECIFIED: _ClassVar[TournamentFormat]
    SWISS: _ClassVar[TournamentFormat]
    ROUND_ROBIN: _ClassVar[TournamentFormat]
    ELIMINATION: _ClassVar[TournamentFormat]
    TABLE_ROUNDS: _ClassVar[TournamentFormat]
TOURNAMENT_FORMAT_UNSPECIFIED: TournamentFormat
SWISS: TournamentFormat
ROUND_ROBIN: TournamentFormat
ELIMINATION: TournamentFormat
TABLE_ROUNDS: TournamentFormat

class CreateTournamentRequest(_message.Message):
    __slots__ = ("name", "game", "format", "rounds", "seats", "turn_timeout_ms", "max_players", "no_show_after_s", "organiser_token", "start_within_s")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TURN_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NO_SHOW_AFTER_S_FIELD_NUMBER: _ClassVar[int]
    ORGANISER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    START_WITHIN_S_FIELD_NUMBER: _ClassVar[int]
    name: str
    game: str
    format: TournamentFormat
    rounds: int
    seats: int
    turn_timeout_ms: int
    max_players: int
    no_show_after_s: int
    organiser_token: str
    start_within_s: int
    def __init__(self, name: _Optional[str] = ..., game: _Optional[str] = ..., format: _Optional[_Union[TournamentFormat, str]] = ..., rounds: _Optional[int] = ..., seats: _Optional[int] = ..., turn_timeout_ms: _Optional[int] = ..., max_players: _Optional[int] = ..., no_show_after_s: _Optional[int] = ..., organiser_token: _Optional[str] = ..., start_within_s: _Optional[int] = ...) -> None: ...

class TournamentCreated(_message.Message):
    __slots__ = ("tournament_id", "organiser_key", "organiser", "start_by_ms")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANISER_KEY_FIELD_NUMBER: _ClassVar[int]
    ORGANISER_FIELD_NUMBER: _ClassVar[int]
    START_BY_MS_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    organiser_key: str
    organiser: str
    start_by_ms: int
    def __init__(self, tournament_id: _Optional[str] = ..., organiser_key: _Optional[str] = ..., organiser: _Optional[str] = ..., start_by_ms: _Optional[int] = ...) -> None: ...

class RegisterRequest(_message.Message):
    __slots__ = ("tournament_id", "player", "join_data")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    JOIN_DATA_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player: str
    join_data: bytes
    def __init__(self, tournament_id: _Optional[str] = ..., player: _Optional[str] = ..., join_data: _Optional[bytes] = ...) -> None: ...

class Registration(_message.Message):
    __slots__ = ("tournament_id", "player", "player_key")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_KEY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player: str
    player_key: str
    def __init__(self, tournament_id: _Optional[str] = ..., player: _Optional[str] = ..., player_key: _Optional[str] = ...) -> None: ...

class WithdrawRequest(_message.Message):
    __slots__ = ("tournament_id", "player", "key")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player: str
    key: str
    def __init__(self, tournament_id: _Optional[str] = ..., player: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class WithdrawResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StartTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "organiser_key")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ORGANISER_KEY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    organiser_key: str
    def __init__(self, tournament_id: _Optional[str] = ..., organiser_key: _Optional[str] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "page_size", "page_token")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    page_size: int
    page_token: str
    def __init__(self, tournament_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("place", "player", "points", "tiebreaks", "games", "wins", "byes", "rating", "withdrawn")
    PLACE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TIEBREAKS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    BYES_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    place: int
    player: str
    points: float
    tiebreaks: _containers.RepeatedScalarFieldContainer[float]
    games: int
    wins: int
    byes: int
    rating: float
    withdrawn: bool
    def __init__(self, place: _Optional[int] = ..., player: _Optional[str] = ..., points: _Optional[float] = ..., tiebreaks: _Optional[_Iterable[float]] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., byes: _Optional[int] = ..., rating: _Optional[float] = ..., withdrawn: _Optional[bool] = ...) -> None: ...

class TournamentStatus(_message.Message):
    __slots__ = ("tournament_id", "name", "game", "format", "state", "round", "rounds", "players", "tables_pending", "tiebreak_names", "standings", "finish_reason", "games_played", "next_page_token", "standings_total", "start_by_ms", "organiser")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TABLES_PENDING_FIELD_NUMBER: _ClassVar[int]
    TIEBREAK_NAMES_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    GAMES_PLAYED_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    START_BY_MS_FIELD_NUMBER: _ClassVar[int]
    ORGANISER_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    name: str
    game: str
    format: TournamentFormat
    state: str
    round: int
    rounds: int
    players: int
    tables_pending: int
    tiebreak_names: _containers.RepeatedScalarFieldContainer[str]
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    finish_reason: str
    games_played: int
    next_page_token: str
    standings_total: int
    start_by_ms: int
    organiser: str
    def __init__(self, tournament_id: _Optional[str] = ..., name: _Optional[str] = ..., game: _Optional[str] = ..., format: _Optional[_Union[TournamentFormat, str]] = ..., state: _Optional[str] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., players: _Optional[int] = ..., tables_pending: _Optional[int] = ..., tiebreak_names: _Optional[_Iterable[str]] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., finish_reason: _Optional[str] = ..., games_played: _Optional[int] = ..., next_page_token: _Optional[str] = ..., standings_total: _Optional[int] = ..., start_by_ms: _Optional[int] = ..., organiser: _Optional[str] = ...) -> None: ...

class TableResult(_message.Message):
    __slots__ = ("table_id", "round", "players", "points", "places", "scores", "forfeited")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    round: int
    players: _containers.RepeatedScalarFieldContainer[str]
    points: _containers.RepeatedScalarFieldContainer[float]
    places: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[float]
    forfeited: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, table_id: _Optional[str] = ..., round: _Optional[int] = ..., players: _Optional[_Iterable[str]] = ..., points: _Optional[_Iterable[float]] = ..., places: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[float]] = ..., forfeited: _Optional[_Iterable[bool]] = ...) -> None: ...

class TournamentResults(_message.Message):
    __slots__ = ("tournament_id", "results", "byes_round", "byes_player", "next_page_token", "results_total")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    BYES_ROUND_FIELD_NUMBER: _ClassVar[int]
    BYES_PLAYER_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESULTS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    results: _containers.RepeatedCompositeFieldContainer[TableResult]
    byes_round: _containers.RepeatedScalarFieldContainer[int]
    byes_player: _containers.RepeatedScalarFieldContainer[str]
    next_page_token: str
    results_total: int
    def __init__(self, tournament_id: _Optional[str] = ..., results: _Optional[_Iterable[_Union[TableResult, _Mapping]]] = ..., byes_round: _Optional[_Iterable[int]] = ..., byes_player: _Optional[_Iterable[str]] = ..., next_page_token: _Optional[str] = ..., results_total: _Optional[int] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("tournament_id", "player", "player_key")
    TOURNAMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_KEY_FIELD_NUMBER: _ClassVar[int]
    tournament_id: str
    player: str
    player_key: str
    def __init__(self, tournament_id: _Optional[str] = ..., player: _Optional[str] = ..., player_key: _Optional[str] = ...) -> None: ...

class RoundStarted(_message.Message):
    __slots__ = ("round", "table", "bye")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    BYE_FIELD_NUMBER: _ClassVar[int]
    round: int
    table: _lobby_pb2.TableAssignment
    bye: bool
    def __init__(self, round: _Optional[int] = ..., table: _Optional[_Union[_lobby_pb2.TableAssignment, _Mapping]] = ..., bye: _Optional[bool] = ...) -> None: ...

class RoundEnded(_message.Message):
    __slots__ = ("round", "standings", "standings_total")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    round: int
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    standings_total: int
    def __init__(self, round: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., standings_total: _Optional[int] = ...) -> None: ...

class TournamentEvent(_message.Message):
    __slots__ = ("status", "round_started", "round_ended")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    ROUND_ENDED_FIELD_NUMBER: _ClassVar[int]
    status: TournamentStatus
    round_started: RoundStarted
    round_ended: RoundEnded
    def __init__(self, status: _Optional[_Union[TournamentStatus, _Mapping]] = ..., round_started: _Optional[_Union[RoundStarted, _Mapping]] = ..., round_ended: _Optional[_Union[RoundEnded, _Mapping]] = ...) -> None: ...
