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
        "their_turn": "{name} to play",
        "watching": "You are watching this game.",
        "you": "you",
        "who_host": "host",
        "who_guest": "guest",
        "who_human": "human",
        "trump": "Trump",
        "talon": "Talon",
        "talon_closed": "closed by {name}",
        "talon_empty": "empty",
        "table": "On the table",
        "board": "The table",
        "last_trick": "Last trick",
        "hand": "Your hand",
        "points": "Points",
        "pending": "pending",
        "tricks": "Tricks",
        "match": "Match",
        "deal": "Deal {n}",
        "target": "first to {n}",
        "known": "Known in {name}'s hand",
        "actions": "Your move",
        "play": "Play {card}",
        "marry": "Marriage: lead {card}",
        "exchange": "Exchange the trump card",
        "close": "Close the talon",
        "declare": "Declare 66",
        "clock": "Time left",
        "keys_hint": "Keys: 1–9 choose a move; arrows move between moves, Enter plays.",
        "deal_end": "Deal {n}: {winner} won {gp} game points: {reason}. Points {p0}–{p1}.",
        "deal_end_one": "Deal {n}: {winner} won 1 game point: {reason}. Points {p0}–{p1}.",
        "deals": "Deals",
        "result_win": "You won the match {a}–{b}.",
        "result_loss": "{name} won the match {a}–{b}.",
        "result_watch": "{name} won the match {a}–{b}.",
        "result_by": "({reason})",
        "replay": "Replay of this match",
        "again": "Play again",
        "log": "What happened",
        "ev_play": "{name} played {card}",
        "ev_trick": "{name} took the trick (+{points})",
        "ev_marriage": "{name} declared a marriage with {card} ({points})",
        "ev_exchange": "{name} took {card} by exchange",
        "ev_close": "{name} closed the talon",
        "ev_draw": "{name} drew {card}",
        "ev_draw_hidden": "{name} drew a card",
        "ev_declare": "{name} declared 66 with {points}",
        "ev_deal-end": "the deal is over",
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
        "present_no": "away",
        "failure": "The game stopped: {message}",
        "back": "Home",
        "r_reached-66": "reached 66",
        "r_declared-66": "declared 66",
        "r_closed-and-reached-66": "closed the talon and reached 66",
        "r_closed-and-declared-66": "closed the talon and declared 66",
        "r_failed-close": "the closer did not make 66",
        "r_wrong-declaration": "a wrong declaration of 66",
        "r_last-trick": "nobody reached 66; the last trick decided",
        "r_more-points": "nobody reached 66; more points decided",
        "r_forfeit": "forfeit",
        "r_target": "reached the target",
        "r_disconnect": "a player left",
        "r_timeout": "a player ran out of time",
        "r_crash": "the bot crashed",
        "watch_title": "Live standings",
        "watch_live": "Live: the standings update as matches finish.",
    },
    "bg": {
        "site": "arena · игра",
        "home_title": "Играйте сантасе в браузъра",
        "home_intro": "Без изтегляне: изберете противник и натиснете „Бърза игра“ или създайте стая и "
                      "изпратете кода ѝ на приятел. Същият съдия, който съди турнирите на ботове, раздава "
                      "картите и пази правилата — и за вас.",
        "opponent": "Противник",
        "variant": "Вариант",
        "quick_play": "Бърза игра",
        "create_room": "Създай стая",
        "join_title": "Влезте при приятел",
        "join_label": "Код на стаята",
        "join": "Влез",
        "rules": "Правила",
        "rules_of": "Правила на {variant}",
        "language": "Език",
        "room": "Стая",
        "share": "Изпратете тази връзка (или кода) на приятел:",
        "waiting_friend": "Чакаме приятел да влезе…",
        "starting": "Играта започва…",
        "your_turn": "Ваш ред е",
        "their_turn": "{name} е на ход",
        "watching": "Вие гледате тази игра.",
        "you": "вие",
        "who_host": "домакин",
        "who_guest": "гост",
        "who_human": "човек",
        "trump": "Коз",
        "talon": "Талон",
        "talon_closed": "затворен от {name}",
        "talon_empty": "празен",
        "table": "На масата",
        "board": "Масата",
        "last_trick": "Последна взятка",
        "hand": "Вашите карти",
        "points": "Точки",
        "pending": "чакащи",
        "tricks": "Взятки",
        "match": "Мач",
        "deal": "Раздаване {n}",
        "target": "до {n}",
        "known": "Известни карти на {name}",
        "actions": "Вашият ход",
        "play": "Играй {card}",
        "marry": "Обява: играй {card}",
        "exchange": "Смени коза",
        "close": "Затвори талона",
        "declare": "Обяви 66",
        "clock": "Оставащо време",
        "keys_hint": "Клавиши: 1–9 избират ход; стрелките местят между ходовете, Enter играе.",
        "deal_end": "Раздаване {n}: {winner} спечели {gp} точки за играта: {reason}. Точки {p0}–{p1}.",
        "deal_end_one": "Раздаване {n}: {winner} спечели 1 точка за играта: {reason}. Точки {p0}–{p1}.",
        "deals": "Раздавания",
        "result_win": "Вие спечелихте мача {a}–{b}.",
        "result_loss": "{name} спечели мача {a}–{b}.",
        "result_watch": "{name} спечели мача {a}–{b}.",
        "result_by": "({reason})",
        "replay": "Запис на мача",
        "again": "Играй пак",
        "log": "Какво стана",
        "ev_play": "{name} игра {card}",
        "ev_trick": "{name} взе взятката (+{points})",
        "ev_marriage": "{name} обяви {card} ({points})",
        "ev_exchange": "{name} взе {card} със смяна",
        "ev_close": "{name} затвори талона",
        "ev_draw": "{name} изтегли {card}",
        "ev_draw_hidden": "{name} изтегли карта",
        "ev_declare": "{name} обяви 66 с {points}",
        "ev_deal-end": "раздаването свърши",
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
        "present_no": "отсъства",
        "failure": "Играта спря: {message}",
        "back": "Начало",
        "r_reached-66": "стигна 66",
        "r_declared-66": "обяви 66",
        "r_closed-and-reached-66": "затвори талона и стигна 66",
        "r_closed-and-declared-66": "затвори талона и обяви 66",
        "r_failed-close": "затварящият не стигна 66",
        "r_wrong-declaration": "грешно обявени 66",
        "r_last-trick": "никой не стигна 66; реши последната взятка",
        "r_more-points": "никой не стигна 66; решиха повечето точки",
        "r_forfeit": "служебна загуба",
        "r_target": "стигна целта",
        "r_disconnect": "играч напусна",
        "r_timeout": "на играч му изтече времето",
        "r_crash": "ботът се срина",
        "watch_title": "Класиране на живо",
        "watch_live": "На живо: класирането се обновява след всеки мач.",
    },
}
assert set(_STRINGS["en"]) == set(_STRINGS["bg"])


def strings(lang: str) -> dict[str, str]:
    return _STRINGS[lang if lang in LANGS else DEFAULT_LANG]


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


def variant_name(name: str, lang: str) -> str:
    return _VARIANT_NAMES.get(lang, _VARIANT_NAMES["en"]).get(name, name)


def rules_sections(r: RuleSet, lang: str) -> list[tuple[str, list[str]]]:
    """The rules of ``r`` as (heading, sentences), in ``lang``."""
    bg = lang == "bg"
    ranks = "A, 10, K, Q, J" + ("" if r.deck == "20" else ", 9")
    out: list[tuple[str, list[str]]] = []

    def yes(flag: bool, en: str, bg_text: str) -> str:
        return bg_text if bg else en

    cards = [
        yes(True, f"A deck of {r.deck} cards: {ranks} in each suit, ranked in that order within a suit.",
            f"Тесте от {r.deck} карти: {ranks} от всяка боя, по старшинство в този ред."),
        yes(True, "Card points: A 11, 10 10, K 4, Q 3, J 2" + ("" if r.deck == "20" else ", 9 0") + "; 120 in all.",
            "Точки на картите: A 11, 10 10, K 4, Q 3, J 2" + ("" if r.deck == "20" else ", 9 0") + "; общо 120."),
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
    strict = []
    if r.must_follow_suit:
        strict.append("follow suit" if not bg else "да отговорите на боята")
    if r.must_head:
        strict.append("beat the card led if you can" if not bg else "да я надиграете, ако можете")
    if r.must_trump:
        strict.append("trump when you have none of the suit" if not bg else "да сложите коз, ако нямате от боята")
    flat = list(play)
    if strict:
        flat.append(yes(True, "Once the talon is closed or empty you must " + ", ".join(strict) + ".",
                        "Щом талонът е затворен или свършил, трябва " + ", ".join(strict) + "."))
    out.append(("Playing" if not bg else "Игра", flat))

    marriage = [
        yes(True, f"A king and queen of one suit, shown when you lead one of them, are a marriage: "
                  f"{r.marriage_points} points, {r.trump_marriage_points} in trumps.",
            f"Поп и дама от една боя, показани, когато играете единия от тях, са обява: "
            f"{r.marriage_points} точки, {r.trump_marriage_points} в коз."),
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
        rank = r.exchange_rank
        special.append(yes(True, f"The {rank} of trumps may be exchanged for the turned trump card"
                                 f"{' by the player on lead' if r.exchange_leader_only else ''}, while the talon "
                                 f"holds at least {r.exchange_min_talon} cards.",
                           f"{rank} коз може да се смени с обърнатия коз"
                           f"{' от играча на ход' if r.exchange_leader_only else ''}, докато в талона има поне "
                           f"{r.exchange_min_talon} карти."))
    if r.close_min is None:
        special.append(yes(True, "The talon cannot be closed.", "Талонът не може да се затваря."))
    else:
        special.append(yes(True, f"The player on lead may close the talon while it holds at least {r.close_min} "
                                 f"cards: nobody draws any more and the follow rules hold. A closer who does not "
                                 f"reach 66 first gives the opponent {r.failed_close_points} game points "
                                 f"({r.failed_close_points_no_tricks} if the closer took no trick).",
                           f"Играчът на ход може да затвори талона, докато в него има поне {r.close_min} карти: "
                           f"никой не тегли повече и важат правилата за отговор. Ако затворилият не стигне "
                           f"пръв 66, противникът получава {r.failed_close_points} точки за играта "
                           f"({r.failed_close_points_no_tricks}, ако затворилият няма взятка)."))
    out.append(("Exchange and closing" if not bg else "Смяна и затваряне", special))

    win = [
        yes(True, "The first to 66 points (cards and counted marriages) wins the deal"
                  + (" at once." if r.declare_66 == "automatic"
                     else f", but must declare it: a wrong declaration gives the opponent "
                          f"{r.wrong_declaration_points} game points."),
            "Първият с 66 точки (карти и броени обяви) печели раздаването"
            + (" веднага." if r.declare_66 == "automatic"
               else f", но трябва да го обяви: грешно обявяване дава на противника "
                    f"{r.wrong_declaration_points} точки за играта.")),
        yes(True, f"The last trick, when the talon ran out, is worth {r.last_trick_bonus} more points. If nobody "
                  "reaches 66, " + ("the last trick wins" if r.no_66_winner == "last-trick"
                                    else "more points win") + f" ({r.no_66_game_points} game point).",
            f"Последната взятка, когато талонът е свършил, носи още {r.last_trick_bonus} точки. Ако никой не "
            "стигне 66, " + ("печели последната взятка" if r.no_66_winner == "last-trick"
                             else "печелят повечето точки") + f" ({r.no_66_game_points} точка за играта)."),
        yes(True, f"Game points: 1, or 2 when the loser has fewer than {r.schneider_below} points, or 3 when "
                  + ("the loser took no trick." if r.schwarz == "no-tricks" else "the loser has no points."),
            f"Точки за играта: 1, или 2, когато загубилият има под {r.schneider_below} точки, или 3, когато "
            + ("загубилият няма взятка." if r.schwarz == "no-tricks" else "загубилият няма точки.")),
        yes(True, f"The first to {r.match_target} game points wins the match.",
            f"Първият с {r.match_target} точки за играта печели мача."),
    ]
    out.append(("Winning" if not bg else "Победа", win))
    return out
