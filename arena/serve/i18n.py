"""Every string of `arena serve`'s pages, in English and Bulgarian, and the rules page's text.

The page's own script gets the strings of its language as JSON (``strings(lang)``); the templates use the
same table through ``t``. The rules page is written from a RuleSet's parameters (the ones docs/RULES.md
describes), one sentence per rule, so it says what the server actually plays.
"""

from __future__ import annotations

from arena.game.variants import RuleSet

LANGS = ("en", "bg")
DEFAULT_LANG = "en"

_STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "ladder_title": "Ladder: {variant}",
        "ladder_intro": "Bots submitted at any time, placed within a few pairs and rated continuously. A rating "
                        "marked ? is provisional: its 95% interval is still wide.",
        "ladder_rank": "Rank",
        "ladder_ranks": "Could be",
        "ladder_bot": "Bot",
        "ladder_version": "Version",
        "ladder_rating": "Rating",
        "ladder_interval": "95% interval",
        "ladder_pairs": "Pairs",
        "ladder_author": "Author",
        "ladder_retired": "retired",
        "ladder_not_rated": "Not rated",
        "ladder_site": "arena · ladder",
        "ladder_state_checking": "being checked",
        "ladder_state_refused": "refused",
        "ladder_state_waiting": "admitted, placed by the next rated pair",
        "ladder_state_rated": "rated",
        "ladder_state_retired": "retired",
        "ladder_anchor_mean": "Rating 0 is the mean of the bots in play.",
        "ladder_anchor_name": "Rating 0 is {name}'s current version.",
        # issue 36, the house levels (arena/levels.py)
        "ladder_anchor_levels": "The house levels sit at their measured Elo: Level 1 is 0.",
        "ladder_history": "Rating after each pair",
        "ladder_history_axis": "rated pairs of the ladder",
        "ladder_recent": "Recent matches",
        "ladder_replay": "replay",
        "ladder_challenge": "challenge",
        "ladder_upload": "Submit a bot",
        "ladder_upload_intro": "Give a name, and a command line or the bot's files (or both: the command runs "
                               "in the folder of the files). A new program under a known name is its next "
                               "version. It is checked (arena check and a pair against itself) before it plays.",
        "ladder_name": "Name",
        "ladder_command": "Command line",
        "ladder_files": "Files",
        "ladder_build": "Build command (optional)",
        "ladder_token": "Upload token",
        "ladder_submit": "Submit",
        "ladder_received": "Received {name}: number {position} in the queue of admissions. Your page (My "
                           "uploads) follows it; the leaderboard lists it once it is admitted.",
        "ladder_sign_in": "Sign in",
        "ladder_sign_in_intro": "Sign in with the upload token the organiser gave you; then submit bots and follow "
                                "their admission on your page. The browser keeps you signed in for 12 hours.",
        "ladder_sign_in_first": "Sign in with your upload token first.",
        "ladder_sign_out": "Sign out",
        "ladder_signed_in": "Signed in as {author}.",
        "ladder_mine": "My uploads",
        "ladder_too_many": "Too many wrong tokens from your address: try again in {seconds} s.",
        "ladder_busy": "you have {n} uploads waiting or being checked already; wait for one to finish",
        "ladder_over_quota": "your bots' folders take {used} of your {quota}; ask the organiser to make room",
        "ladder_usage": "Your bots' folders take {used} of your {quota}.",
        "ladder_in_queue": "Waiting for admission",
        "ladder_queued": "queued, number {position} of {of}",
        "ladder_admitting": "being built and checked now",
        "ladder_queue_empty": "nothing waiting",
        "ladder_failed": "its admission failed on the server; send it again, or tell the organiser",
        "ladder_versions": "Your versions",
        "ladder_detail": "Details (for you only)",
        "ladder_no_versions": "none yet",
        "ladder_bad_token": "That upload token is not valid; ask the organiser for one.",
        "ladder_bad_upload": "The submission was refused: {reason}",
        "ladder_unknown_bot": "There is no bot {name} on this ladder.",
        "ladder_flagged": "Flagged: matches played on {host} end in a crash or timeout far more often than "
                          "elsewhere; the organiser may void them.",
        "site": "arena · play",
        "home_title": "Play Santase in your browser",
        "home_intro": "No download: pick an opponent and press Quick Play, or create a room and share its code "
                      "with a friend. The same referee that judges bot tournaments deals the cards and keeps "
                      "the rules, for you too.",
        "opponent": "Opponent",
        "variant": "Variant",
        "quick_play": "Quick Play",
        "create_room": "Create a room",
        "join_title": "Join a friend",
        "join_label": "Room code",
        "join": "Join",
        "rules": "Rules",
        "rules_of": "Rules of {variant}",
        "language": "Language",
        "room": "Room",
        "share": "Send this link (or the code) to a friend:",
        "waiting_friend": "Waiting for a friend to join…",
        "starting": "The game is starting…",
        "your_turn": "Your turn",
        "your_lead": "lead a card",
        "your_answer": "answer {name}'s card",
        "their_turn": "{name} to play",
        "watching": "You are watching this game.",
        "you": "you",
        "you_cap": "You",
        "who_host": "Player 1",
        "who_guest": "Player 2",
        "who_human": "Player",
        "to_move": "to play",
        "leads": "leads",
        "led": "led",
        "trump": "Trump",
        "talon": "Talon",
        "talon_closed": "closed by {name}",
        "talon_closed_you": "closed by you",
        "talon_empty": "empty",
        "talon_cards": "{n} cards in the talon",
        "talon_cards_one": "1 card in the talon",
        "table": "On the table",
        "board": "The table",
        "last_trick": "Last trick",
        "no_trick": "No trick taken yet.",
        "took_it": "{name} took it (+{points})",
        "took_it_you": "You took it (+{points})",
        "cards_held": "{n} cards",
        "cards_held_one": "1 card",
        "points": "Points",
        "pending": "pending",
        "tricks": "Tricks",
        "marriages": "Marriages",
        "match": "Match",
        "deal": "Deal {n}",
        "target": "first to {n}",
        "known": "known",
        "why_wrong-declaration_you": "you declared 66 without having it",
        "why_closed-and-declared-66_you": "you closed the talon and declared 66",
        "why_closed-and-reached-66_you": "you closed the talon and reached 66",
        "why_declared-66_you": "you declared 66 and had it",
        "why_reached-66_you": "you reached 66",
        "low_J": "the jack",
        "low_9": "the nine",
        "show_result": "Show the result",
        "close_panel": "Close",
        "cancel": "Cancel",
        "confirm_close_yes": "Close the talon",
        "confirm_close": "Close the talon? Nobody draws any more and the follow rules hold. If you do not reach 66 "
                         "first, the opponent scores {gp} game points.",
        "confirm_declare_yes": "Declare 66 anyway",
        "confirm_declare_no_trick": "You have not taken a trick yet. Declaring 66 now ends the deal: the opponent "
                                    "scores {gp} game points.",
        "confirm_declare": "You have {n} points. Declaring 66 now ends the deal: the opponent scores {gp} game points.",
        "declare_no_trick": "Declare 66 (you have {n} and no trick: the opponent scores {gp})",
        "declare_low": "Declare 66 (you have {n}: below 66 the opponent scores {gp})",
        "marry_choice": "Announce {value} as you lead {card}?",
        "marry_plain": "Lead {card} without announcing",
        "score_line": "{a} {sa}–{sb} {b}",
        "title_turn": "● Your turn",
        "sound_off": "Sound off",
        "sound_on": "Sound on",
        "copied": "Copied",
        "copy_link": "Copy the link",
        "nickname_hint": "shown to the other player; kept in this browser",
        "nickname": "Your name",
        "actions": "Your move",
        "play": "Play {card}",
        "marry": "Lead {card}, announce {points}",
        "marry_void": "Lead {card}, show {value} (no points: no trick yet)",
        "exchange": "Give {low} for {card}",
        "exchange_J": "Give {low} for {card}",
        "close": "Close the talon",
        "declare": "Declare 66 (you have {n})",
        "clock": "Time left",
        "keys_hint": "Keys: 1–9 choose a move; arrows move between moves, Enter plays.",
        "ev_play": "{name} played {card}",
        "ev_play_you": "You played {card}",
        "ev_trick": "{name} took the trick (+{points})",
        "ev_trick_you": "You took the trick (+{points})",
        "ev_marriage": "{name} declared a marriage: {cards} (+{points})",
        "ev_marriage_you": "You declared a marriage: {cards} (+{points})",
        "ev_marriage_void": "{name} showed a marriage: {cards} (no points: no trick taken yet)",
        "ev_marriage_void_you": "You showed a marriage: {cards} (no points: no trick taken yet)",
        "ev_exchange": "{name} gave {low} for {card}",
        "ev_exchange_you": "You gave {low} for {card}",
        "ev_close": "{name} closed the talon",
        "ev_close_you": "You closed the talon",
        "ev_draw": "{name} drew {card}",
        "ev_draw_you": "You drew {card}",
        "ev_draw_hidden": "{name} drew a card",
        "ev_draw_hidden_you": "You drew a card",
        "ev_declare": "{name} declared 66 with {points}",
        "ev_declare_you": "You declared 66 with {points}",
        "ev_deal-end": "The deal is over.",
        "ev_deal-end_you": "The deal is over.",
        "deal_over": "Deal {n} is over",
        "deal_won": "{name} won {gp} game points",
        "deal_won_one": "{name} won 1 game point",
        "deal_won_you": "You won {gp} game points",
        "deal_won_one_you": "You won 1 game point",
        "why": "Why: {reason}",
        "why_failed_close": "{name} closed the talon and did not reach 66 first",
        "why_failed_close_you": "you closed the talon and did not reach 66 first",
        "gp_no-tricks": "{name} took no trick",
        "gp_no-tricks_you": "you took no trick",
        "gp_closer-no-tricks": "{name} took no trick",
        "gp_closer-no-tricks_you": "you took no trick",
        "gp_no-points": "{name} has no points",
        "gp_no-points_you": "you have no points",
        "gp_schneider": "{name} has fewer than {n} points",
        "gp_schneider_you": "you have fewer than {n} points",
        "card_points": "Card points",
        "continue": "Continue",
        "deal_line": "Deal {n}: {won} ({reason}). Points: {a} {pa}, {b} {pb}.",
        "deals": "Deals",
        "match_over": "The match is over",
        "result_win": "You won the match {a}–{b}.",
        "result_loss": "{name} won the match {a}–{b}.",
        "result_watch": "{name} won the match {a}–{b}.",
        "result_by": "({reason})",
        "replay": "Replay of this match",
        "again": "New game",
        "rematch": "Rematch",
        "rematch_offer": "{name} wants a rematch.",
        "rematch_join": "Join the rematch",
        "log": "Game log",
        "error": "Not accepted: {message}",
        "err_not-your-turn": "it is not your turn",
        "err_illegal": "that move is not allowed now",
        "err_spectator": "spectators cannot play",
        "err_over": "the match is over",
        "err_malformed": "the message was not understood",
        "err_too-long": "the message was too long",
        "err_unknown-type": "the message was not understood",
        "connection_lost": "Connection lost; reconnecting…",
        "no_room": "There is no room {code}: it has expired, or the code is wrong.",
        "refused": "Not possible: {message}",
        "refused_full": "the server has as many rooms as it allows; try again later",
        "refused_too-many-games": "at most {n} open games per player",
        "refused_too-many-connections": "too many connections from your address",
        "refused_unknown-variant": "there is no variant {name}",
        "refused_unknown-opponent": "there is no opponent {name}",
        "refused_too-long": "the form is too long",
        "refused_malformed": "the form was not understood",
        "refused_no-seat": "only a player of this match can ask for a rematch",
        "refused_cross-site": "a request from another site is refused",
        "refused_unknown-room": "there is no such room",
        "present_no": "away",
        "away_countdown": "{name} left — forfeits in {time} unless they return",
        "left_forfeit": "{name} left the table and did not return within {n} s: {winner} wins the match.",
        "left_forfeit_you": "You left the table and did not return within {n} s: {winner} wins the match.",
        "left_forfeit_won": "{name} left the table and did not return within {n} s: you win the match.",
        "connection_lost_forfeit": "Connection lost; reconnecting… Unless it returns, you forfeit in {time}.",
        "reconnecting": "Reconnecting…",
        "clock_them": "Time left for {name}",
        "failure": "The game stopped: {message}",
        "back": "Home",
        "why_reached-66": "{name} reached 66",
        "why_declared-66": "{name} declared 66 and had it",
        "why_closed-and-reached-66": "{name} closed the talon and reached 66",
        "why_closed-and-declared-66": "{name} closed the talon and declared 66",
        "r_failed-close": "the talon was closed without reaching 66",
        "why_wrong-declaration": "{name} declared 66 without having it",
        "r_reached-66": "66 reached",
        "r_declared-66": "66 declared",
        "r_closed-and-reached-66": "talon closed and 66 reached",
        "r_closed-and-declared-66": "talon closed and 66 declared",
        "r_wrong-declaration": "66 declared without having it",
        "r_last-trick": "nobody reached 66; the last trick decided",
        "r_more-points": "nobody reached 66; more points decided",
        "r_forfeit": "forfeit",
        "r_target": "the target was reached",
        "r_disconnect": "a player left",
        "r_timeout": "a player ran out of time",
        "r_crash": "the bot crashed",
        "r_handshake": "the bot did not start properly",
        "r_malformed": "the bot broke the protocol",
        "r_overlong": "the bot broke the protocol",
        "r_encoding": "the bot broke the protocol",
        "r_illegal": "an illegal move",
        "r_unexpected": "the bot broke the protocol",
        "r_tampered": "the bot's program changed",
        "watch_title": "Live standings",
        "watch_live": "Live: the standings update as matches finish.",
    },
    "bg": {
        "ladder_title": "Класация: {variant}",
        "ladder_intro": "Ботове, подадени по всяко време, класирани след няколко двойки и оценявани непрекъснато. "
                        "Рейтинг с ? е временен: 95% интервалът му още е широк.",
        "ladder_rank": "Място",
        "ladder_ranks": "Може да е",
        "ladder_bot": "Бот",
        "ladder_version": "Версия",
        "ladder_rating": "Рейтинг",
        "ladder_interval": "95% интервал",
        "ladder_pairs": "Двойки",
        "ladder_author": "Автор",
        "ladder_retired": "оттеглен",
        "ladder_not_rated": "Без рейтинг",
        "ladder_site": "арена · класация",
        "ladder_state_checking": "проверява се",
        "ladder_state_refused": "отказан",
        "ladder_state_waiting": "приет, влиза в класацията със следващата двойка",
        "ladder_state_rated": "в класацията",
        "ladder_state_retired": "оттеглен",
        "ladder_anchor_mean": "Рейтинг 0 е средният на ботовете в игра.",
        "ladder_anchor_name": "Рейтинг 0 е на текущата версия на {name}.",
        # issue 36, the house levels (arena/levels.py)
        "ladder_anchor_levels": "Нивата на сайта стоят на измерения си рейтинг: Ниво 1 е 0.",
        "ladder_history": "Рейтинг след всяка двойка",
        "ladder_history_axis": "оценени двойки в класацията",
        "ladder_recent": "Последни мачове",
        "ladder_replay": "запис",
        "ladder_challenge": "предизвикателство",
        "ladder_upload": "Подайте бот",
        "ladder_upload_intro": "Дайте име и команден ред или файловете на бота (или и двете: командата се "
                               "изпълнява в папката на файловете). Нова програма под познато име е следващата "
                               "му версия. Проверява се (arena check и двойка срещу себе си), преди да играе.",
        "ladder_name": "Име",
        "ladder_command": "Команден ред",
        "ladder_files": "Файлове",
        "ladder_build": "Команда за компилиране (по избор)",
        "ladder_token": "Ключ за подаване",
        "ladder_submit": "Подайте",
        "ladder_received": "Получихме {name}: номер {position} в опашката за допускане. Страницата ви (Моите "
                           "подавания) го следи; класацията ще го покаже, когато бъде допуснат.",
        "ladder_sign_in": "Вход",
        "ladder_sign_in_intro": "Влезте с ключа за подаване, който ви е дал организаторът; след това подавайте "
                                "ботове и следете допускането им на страницата си. Браузърът ви пази влезли 12 часа.",
        "ladder_sign_in_first": "Първо влезте с ключа си за подаване.",
        "ladder_sign_out": "Изход",
        "ladder_signed_in": "Влезли сте като {author}.",
        "ladder_mine": "Моите подавания",
        "ladder_too_many": "Твърде много грешни ключове от вашия адрес: опитайте отново след {seconds} s.",
        "ladder_busy": "вече имате {n} подавания, които чакат или се проверяват; изчакайте някое да приключи",
        "ladder_over_quota": "папките на ботовете ви заемат {used} от вашите {quota}; помолете организатора за място",
        "ladder_usage": "Папките на ботовете ви заемат {used} от вашите {quota}.",
        "ladder_in_queue": "Чакат допускане",
        "ladder_queued": "в опашката, номер {position} от {of}",
        "ladder_admitting": "компилира се и се проверява сега",
        "ladder_queue_empty": "нищо не чака",
        "ladder_failed": "допускането му се провали на сървъра; подайте го отново или кажете на организатора",
        "ladder_versions": "Вашите версии",
        "ladder_detail": "Подробности (само за вас)",
        "ladder_no_versions": "още няма",
        "ladder_bad_token": "Този ключ за подаване не е валиден; поискайте ключ от организатора.",
        "ladder_bad_upload": "Подаването е отказано: {reason}",
        "ladder_unknown_bot": "В тази класация няма бот {name}.",
        "ladder_flagged": "Внимание: мачовете, играни на {host}, завършват със срив или просрочване много по-често "
                          "от другаде; организаторът може да ги анулира.",
        "site": "арена · игра",
        "home_title": "Играйте сантасе в браузъра",
        "home_intro": "Без изтегляне: изберете противник и натиснете „Бърза игра“ или създайте стая и "
                      "изпратете кода ѝ на приятел. Същият съдия, който съди турнирите на ботове, раздава "
                      "картите и пази правилата — и за вас.",
        "opponent": "Противник",
        "variant": "Вариант",
        "quick_play": "Бърза игра",
        "create_room": "Създайте стая",
        "join_title": "Влезте при приятел",
        "join_label": "Код на стаята",
        "join": "Влезте",
        "rules": "Правила",
        "rules_of": "Правила на {variant}",
        "language": "Език",
        "room": "Стая",
        "share": "Изпратете тази връзка (или кода) на приятел:",
        "waiting_friend": "Чакаме приятел да влезе…",
        "starting": "Играта започва…",
        "your_turn": "Вие сте на ход",
        "your_lead": "изиграйте карта",
        "your_answer": "отговорете на картата на {name}",
        "their_turn": "{name} е на ход",
        "watching": "Вие гледате тази игра.",
        "you": "вие",
        "you_cap": "Вие",
        "who_host": "Играч 1",
        "who_guest": "Играч 2",
        "who_human": "Играч",
        "to_move": "на ход",
        "leads": "води",
        "led": "изиграна първа",
        "trump": "Коз",
        "talon": "Талон",
        "talon_closed": "затворен от {name}",
        "talon_closed_you": "затворен от вас",
        "talon_empty": "празен",
        "talon_cards": "{n} карти в талона",
        "talon_cards_one": "1 карта в талона",
        "table": "На масата",
        "board": "Масата",
        "last_trick": "Последна взятка",
        "no_trick": "Още няма взета взятка.",
        "took_it": "{name} я взе (+{points})",
        "took_it_you": "Вие я взехте (+{points})",
        "cards_held": "{n} карти",
        "cards_held_one": "1 карта",
        "points": "Точки",
        "pending": "при следваща взятка",
        "tricks": "Взятки",
        "marriages": "Обяви",
        "match": "Мач",
        "deal": "Раздаване {n}",
        "target": "до {n}",
        "known": "известна",
        "why_wrong-declaration_you": "вие обявихте 66, без да ги имате",
        "why_closed-and-declared-66_you": "вие затворихте талона и обявихте 66",
        "why_closed-and-reached-66_you": "вие затворихте талона и стигнахте 66",
        "why_declared-66_you": "вие обявихте 66 и ги имахте",
        "why_reached-66_you": "вие стигнахте 66",
        "low_J": "валето",
        "low_9": "деветката",
        "show_result": "Покажете резултата",
        "close_panel": "Затваряне",
        "cancel": "Отказ",
        "confirm_close_yes": "Затворете талона",
        "confirm_close": "Да затворите ли талона? Никой не тегли повече и важат правилата за отговор. Ако не стигнете "
                         "първи 66, противникът получава {gp} точки.",
        "confirm_declare_yes": "Обявете 66 въпреки това",
        "confirm_declare_no_trick": "Още нямате взятка. Ако обявите 66 сега, раздаването свършва и противникът "
                                    "получава {gp} точки.",
        "confirm_declare": "Имате {n} точки. Ако обявите 66 сега, раздаването свършва и противникът получава {gp} "
                           "точки.",
        "declare_no_trick": "Обявете 66 (имате {n} и нямате взятка: противникът получава {gp})",
        "declare_low": "Обявете 66 (имате {n}: под 66 противникът получава {gp})",
        "exchange_J": "Сменете валето: {low} за {card}",
        "marry_choice": "Обявявате ли {value}, като играете {card}?",
        "marry_plain": "Изиграйте {card} без обява",
        "score_line": "{a} {sa}–{sb} {b}",
        "title_turn": "● Вие сте на ход",
        "sound_off": "Звук: изкл.",
        "sound_on": "Звук: вкл.",
        "copied": "Копирано",
        "copy_link": "Копирайте връзката",
        "nickname_hint": "вижда го другият играч; пази се в този браузър",
        "nickname": "Вашето име",
        "actions": "Вашият ход",
        "play": "Изиграйте {card}",
        "marry": "Изиграйте {card}, обявете {points}",
        "marry_void": "Изиграйте {card}, покажете {value} (без точки: още нямате взятка)",
        "exchange": "Сменете деветката: {low} за {card}",
        "close": "Затворете талона",
        "declare": "Обявете 66 (имате {n})",
        "clock": "Оставащо време",
        "keys_hint": "Клавиши: 1–9 избират ход; стрелките местят между ходовете, Enter играе.",
        "ev_play": "{name} изигра {card}",
        "ev_play_you": "Вие изиграхте {card}",
        "ev_trick": "{name} взе взятката (+{points})",
        "ev_trick_you": "Вие взехте взятката (+{points})",
        "ev_marriage": "{name} обяви {points}: {cards}",
        "ev_marriage_you": "Вие обявихте {points}: {cards}",
        "ev_marriage_void": "{name} показа {cards} (без точки: още няма взятка)",
        "ev_marriage_void_you": "Вие показахте {cards} (без точки: още нямате взятка)",
        "ev_exchange": "{name} смени {word} ({low}) и взе {card}",
        "ev_exchange_you": "Вие сменихте {word} ({low}) и взехте {card}",
        "ev_close": "{name} затвори талона",
        "ev_close_you": "Вие затворихте талона",
        "ev_draw": "{name} изтегли {card}",
        "ev_draw_you": "Вие изтеглихте {card}",
        "ev_draw_hidden": "{name} изтегли карта",
        "ev_draw_hidden_you": "Вие изтеглихте карта",
        "ev_declare": "{name} обяви 66 с {points}",
        "ev_declare_you": "Вие обявихте 66 с {points}",
        "ev_deal-end": "Раздаването свърши.",
        "ev_deal-end_you": "Раздаването свърши.",
        "deal_over": "Раздаване {n} свърши",
        "deal_won": "{name} спечели {gp} точки",
        "deal_won_one": "{name} спечели 1 точка",
        "deal_won_you": "Вие спечелихте {gp} точки",
        "deal_won_one_you": "Вие спечелихте 1 точка",
        "why": "{reason}",
        "why_failed_close": "{name} затвори талона и не стигна пръв до 66",
        "why_failed_close_you": "вие затворихте талона и не стигнахте първи до 66",
        "gp_no-tricks": "{name} не взе нито една взятка",
        "gp_no-tricks_you": "вие не взехте нито една взятка",
        "gp_closer-no-tricks": "{name} не взе нито една взятка",
        "gp_closer-no-tricks_you": "вие не взехте нито една взятка",
        "gp_no-points": "{name} няма точки",
        "gp_no-points_you": "вие нямате точки",
        "gp_schneider": "{name} има под {n} точки",
        "gp_schneider_you": "вие имате под {n} точки",
        "card_points": "Точки от картите",
        "continue": "Продължете",
        "deal_line": "Раздаване {n}: {won} ({reason}). Точки: {a} {pa}, {b} {pb}.",
        "deals": "Раздавания",
        "match_over": "Мачът свърши",
        "result_win": "Вие спечелихте мача {a}–{b}.",
        "result_loss": "{name} спечели мача {a}–{b}.",
        "result_watch": "{name} спечели мача {a}–{b}.",
        "result_by": "({reason})",
        "replay": "Запис на мача",
        "again": "Нова игра",
        "rematch": "Реванш",
        "rematch_offer": "{name} иска реванш.",
        "rematch_join": "Към реванша",
        "log": "Ход на играта",
        "error": "Не е прието: {message}",
        "err_not-your-turn": "не сте на ход",
        "err_illegal": "този ход не е позволен сега",
        "err_spectator": "зрителите не могат да играят",
        "err_over": "мачът свърши",
        "err_malformed": "съобщението не е разбрано",
        "err_too-long": "съобщението е твърде дълго",
        "err_unknown-type": "съобщението не е разбрано",
        "connection_lost": "Връзката прекъсна; свързваме се отново…",
        "no_room": "Няма стая {code}: изтекла е или кодът е грешен.",
        "refused": "Не е възможно: {message}",
        "refused_full": "сървърът има толкова стаи, колкото позволява; опитайте по-късно",
        "refused_too-many-games": "най-много {n} отворени игри на играч",
        "refused_too-many-connections": "твърде много връзки от вашия адрес",
        "refused_unknown-variant": "няма вариант {name}",
        "refused_unknown-opponent": "няма противник {name}",
        "refused_too-long": "формулярът е твърде дълъг",
        "refused_malformed": "формулярът не е разбран",
        "refused_no-seat": "само играч от този мач може да поиска реванш",
        "refused_cross-site": "заявка от друг сайт не се приема",
        "refused_unknown-room": "няма такава стая",
        "present_no": "отсъства",
        "away_countdown": "{name} напусна — губи мача след {time}, ако не се върне",
        "left_forfeit": "{name} напусна масата и не се върна в рамките на {n} секунди: {winner} печели мача.",
        "left_forfeit_you": "Вие напуснахте масата и не се върнахте в рамките на {n} секунди: {winner} печели мача.",
        "left_forfeit_won": "{name} напусна масата и не се върна в рамките на {n} секунди: Вие печелите мача.",
        "connection_lost_forfeit": "Връзката прекъсна; свързваме се отново… "
                                   "Ако не се възстанови, губите мача след {time}.",
        "reconnecting": "Свързваме се отново…",
        "clock_them": "Оставащо време за {name}",
        "failure": "Играта спря: {message}",
        "back": "Начало",
        "why_reached-66": "{name} стигна 66",
        "why_declared-66": "{name} обяви 66 и ги имаше",
        "why_closed-and-reached-66": "{name} затвори талона и стигна 66",
        "why_closed-and-declared-66": "{name} затвори талона и обяви 66",
        "r_failed-close": "затваряне без 66",
        "why_wrong-declaration": "{name} обяви 66, без да ги има",
        "r_reached-66": "66 точки",
        "r_declared-66": "обява на 66",
        "r_closed-and-reached-66": "затваряне и 66 точки",
        "r_closed-and-declared-66": "затваряне и обява на 66",
        "r_wrong-declaration": "обява на 66 без 66 точки",
        "r_last-trick": "никой не стигна 66; реши последната взятка",
        "r_more-points": "никой не стигна 66; решиха повечето точки",
        "r_forfeit": "служебна загуба",
        "r_target": "целта е достигната",
        "r_disconnect": "играч напусна",
        "r_timeout": "на играч му изтече времето",
        "r_crash": "ботът се срина",
        "r_handshake": "ботът не тръгна както трябва",
        "r_malformed": "ботът наруши протокола",
        "r_overlong": "ботът наруши протокола",
        "r_encoding": "ботът наруши протокола",
        "r_illegal": "непозволен ход",
        "r_unexpected": "ботът наруши протокола",
        "r_tampered": "програмата на бота се промени",
        "watch_title": "Класиране на живо",
        "watch_live": "На живо: класирането се обновява след всеки мач.",
    },
}
assert set(_STRINGS["en"]) == set(_STRINGS["bg"])


def strings(lang: str) -> dict[str, str]:
    return _STRINGS[lang if lang in LANGS else DEFAULT_LANG]


def phrase(lang: str, key: str, you: bool = False, n: int | None = None, **values: object) -> str:
    """One sentence of the table in ``lang``, in the form its subject and number need: ``key`` + ``_one``
    when ``n`` is 1, + ``_you`` when the subject is the reader (Bulgarian conjugates: "изигра" / "изиграхте").
    play.js picks the forms by the same rule (its `phrase`); tests/test_serve.py checks a table of them."""
    table = strings(lang)
    name = key + ("_one" if n == 1 and key + "_one" in table else "")
    if you and name + "_you" in table:
        name += "_you"
    return table[name].format(n=n, **values)


def pick_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    """``?lang=`` first, then the remembered choice, then the browser's Accept-Language (by its q values)."""
    for choice in (query, cookie):
        if choice in LANGS:
            return choice
    best, best_q = DEFAULT_LANG, 0.0
    for part in (accept or "")[:500].split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGS and q > best_q:
            best, best_q = primary, q
    return best


# --------------------------------------------------------------------------------------------- rules page
_VARIANT_NAMES = {"en": {"santase": "Santase", "sixty-six": "Sixty-Six", "schnapsen": "Schnapsen"},
                  "bg": {"santase": "Сантасе", "sixty-six": "Шейсет и шест", "schnapsen": "Шнапсен"}}


_BG_RANKS = {"A": "А", "10": "10", "K": "К", "Q": "Д", "J": "В", "9": "9"}  # асо, десетка, поп, дама, вале


def variant_name(name: str, lang: str) -> str:
    return _VARIANT_NAMES.get(lang, _VARIANT_NAMES["en"]).get(name, name)


def rules_sections(r: RuleSet, lang: str) -> list[tuple[str, list[str]]]:
    """The rules of ``r`` as (heading, sentences), in ``lang``."""
    bg = lang == "bg"
    rank = _BG_RANKS if bg else {k: k for k in _BG_RANKS}  # the letters the page's cards show (cards.js)
    ranks = ", ".join(rank[x] for x in ("A", "10", "K", "Q", "J")) + ("" if r.deck == "20" else ", 9")
    out: list[tuple[str, list[str]]] = []

    def yes(flag: bool, en: str, bg_text: str) -> str:
        return bg_text if bg else en

    cards = [
        yes(True, f"A deck of {r.deck} cards: {ranks} in each suit, ranked in that order within a suit.",
            f"Тесте от {r.deck} карти: {ranks} от всяка боя, по старшинство в този ред."),
        yes(True, "Card points: A 11, 10 10, K 4, Q 3, J 2" + ("" if r.deck == "20" else ", 9 0") + "; 120 in all.",
            "Точки на картите: А 11, 10 10, К 4, Д 3, В 2" + ("" if r.deck == "20" else ", 9 0") + "; общо 120."),
        yes(True, f"Each player gets {r.hand_size} cards, dealt in batches of "
                  f"{' and '.join(map(str, r.deal_batches))}.",
            f"Всеки играч получава {r.hand_size} карти, раздадени по "
            f"{' и '.join(map(str, r.deal_batches))}."),
        yes(True, "The next card is turned face up: its suit is trump; it lies under the talon."
            if r.trump_card == "after-deal" else "The talon's bottom card is turned: its suit is trump.",
            "Следващата карта се обръща: боята ѝ е коз; тя лежи под талона."
            if r.trump_card == "after-deal" else "Последната карта на талона се обръща: боята ѝ е коз."),
    ]
    out.append(("Cards and dealing" if not bg else "Карти и раздаване", cards))

    play = [
        yes(True, "The non-dealer leads the first trick; the winner of a trick leads the next. The higher card "
                  "of the suit led wins, unless a trump is played to a plain suit.",
            "Който не раздава, започва първата взятка; който вземе взятка, започва следващата. Печели по-старата "
            "карта от изиграната боя, освен ако на обикновена боя се сложи коз."),
        yes(True, "After each trick, while the talon lasts, the winner draws a card, then the loser.",
            "След всяка взятка, докато има талон, печелившият тегли карта, после другият."),
        yes(True, "While the talon is open, any card may be played." if r.follow_while_open == "free"
            else "The follow rules hold from the first trick on.",
            "Докато талонът е отворен, може да се играе всяка карта." if r.follow_while_open == "free"
            else "Правилата за отговор важат от първата взятка."),
    ]
    strict = []  # one clause each, joined by "; " (not a chain of commas)
    if r.must_follow_suit:
        strict.append("follow suit" if not bg else "отговаряте на боята")
    if r.must_head:
        strict.append("beat the card led if you can" if not bg else "надигравате, ако можете")
    if r.must_trump:
        strict.append("trump when you have none of the suit" if not bg else "слагате коз, ако нямате от боята")
    flat = list(play)
    if strict:
        flat.append(yes(True, "Once the talon is closed or empty: you must " + "; ".join(strict) + ".",
                        "Щом талонът е затворен или свършил: " + "; ".join(strict) + "."))
    out.append(("Playing" if not bg else "Игра", flat))

    marriage = [
        yes(True, f"A king and queen of one suit are a marriage ({r.marriage_points}, or "
                  f"{r.trump_marriage_points} in trumps): on lead, you announce it as you lead "
                  + {"queen": "the queen (tap the queen, or the button \"Lead Q, announce 20\").",
                     "king": "the king (tap the king, or the button \"Lead K, announce 20\").",
                     "either": "the king or the queen, as you choose (tap the card you lead)."}[r.marriage_lead],
            f"Поп и дама от една боя са обява ({r.marriage_points}, или {r.trump_marriage_points} в коз): "
            f"който е на ход, я обявява, като изиграва "
            + {"queen": "дамата (докоснете дамата или бутона „Изиграйте Д, обявете 20“).",
               "king": "попа (докоснете попа или бутона „Изиграйте К, обявете 20“).",
               "either": "попа или дамата, по избор (докоснете картата, която играете)."}[r.marriage_lead]),
        yes(True, "Its points count once you have won a trick." if r.marriage_without_trick == "pending"
            else "Declared before you have won a trick, it counts nothing.",
            "Точките ѝ се броят, щом вземете взятка." if r.marriage_without_trick == "pending"
            else "Обявена преди първата ви взятка, не носи нищо."),
    ]
    if r.marriage_credit == "next-trick":
        marriage.append(yes(True, "Every marriage counts only at your next won trick.",
                            "Всяка обява се брои едва при следващата ви взета взятка."))
    out.append(("Marriages" if not bg else "Обяви", marriage))

    special = []
    if r.exchange_rank != "none":
        low = ({"9": "Деветката", "J": "Валето"} if bg else rank).get(r.exchange_rank, r.exchange_rank)
        special.append(yes(True, f"The {low} of trumps may be exchanged for the turned trump card"
                                 f"{' by the player on lead' if r.exchange_leader_only else ''}, while the talon "
                                 f"holds at least {r.exchange_min_talon} cards.",
                           f"{low} коз може да се смени с обърнатия коз"
                           f"{' от играча на ход' if r.exchange_leader_only else ''}, докато в талона има поне "
                           f"{r.exchange_min_talon} карти."))
    if r.close_min is None:
        special.append(yes(True, "The talon cannot be closed.", "Талонът не може да се затваря."))
    else:
        special.append(yes(True, f"The player on lead may close the talon while it holds at least {r.close_min} "
                                 f"cards: nobody draws any more and the follow rules hold. A closer who does not "
                                 f"reach 66 first gives the opponent {r.failed_close_points} game points"
                                 + (f" ({r.failed_close_points_no_tricks} if the closer took no trick)."
                                    if r.failed_close_points_no_tricks != r.failed_close_points else "."),
                           f"Играчът на ход може да затвори талона, докато в него има поне {r.close_min} карти: "
                           f"никой не тегли повече и важат правилата за отговор. Ако затворилият не стигне "
                           f"пръв 66, противникът получава {r.failed_close_points} точки"
                           + (f" ({r.failed_close_points_no_tricks}, ако затворилият няма взятка)."
                              if r.failed_close_points_no_tricks != r.failed_close_points else ".")))
    out.append(("Exchange and closing" if not bg else "Смяна и затваряне", special))

    win = [
        yes(True, "The first to 66 points (cards and counted marriages) wins the deal"
                  + (" at once." if r.declare_66 == "automatic"
                     else f", but must declare it: a wrong declaration gives the opponent "
                          f"{r.wrong_declaration_points} game points."),
            "Първият с 66 точки (карти и броени обяви) печели раздаването"
            + (" веднага." if r.declare_66 == "automatic"
               else f", но трябва да го обяви: грешно обявяване дава на противника "
                    f"{r.wrong_declaration_points} точки.")),
        yes(True, f"The last trick, when the talon ran out, is worth {r.last_trick_bonus} more points. If nobody "
                  "reaches 66, " + ("the last trick wins" if r.no_66_winner == "last-trick"
                                    else "more points win")
                  + f" ({r.no_66_game_points} game point{'' if r.no_66_game_points == 1 else 's'}).",
            f"Последната взятка, когато талонът е свършил, носи още {r.last_trick_bonus} точки. Ако никой не "
            "стигне 66, " + ("печели последната взятка" if r.no_66_winner == "last-trick"
                             else "печелят повечето точки")
            + f" ({r.no_66_game_points} точк{'а' if r.no_66_game_points == 1 else 'и'})."),
        yes(True, f"Game points: 1, or 2 when the loser has fewer than {r.schneider_below} points, or 3 when "
                  + ("the loser took no trick." if r.schwarz == "no-tricks" else "the loser has no points."),
            f"Раздаването носи на победителя 1 точка, 2, когато загубилият има под {r.schneider_below} точки, "
            "или 3, когато "
            + ("загубилият няма взятка." if r.schwarz == "no-tricks" else "загубилият няма точки.")),
        yes(True, f"The first to {r.match_target} game points wins the match.",
            f"Първият с {r.match_target} точки печели мача."),
    ]
    out.append(("Winning" if not bg else "Победа", win))
    return out
