"""`arena serve`: play in the browser against a registry bot or a friend, through the referee every
tournament uses (a person is one more kind of seat); and `arena serve --watch DB`, a tournament's report
with live standings. docs/SERVE.md is the user's guide.

Modules: seat (a person's seat: the referee's lines in, checked choices out), rooms (rooms, caps, expiry,
recording), app (the Starlette application), watch (the live report), ladder (`--ladder DB`: leaderboard,
bot histories, the upload form), i18n (English and Bulgarian).
"""
