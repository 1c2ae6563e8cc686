"""Index of the generated game modules (written by `hansa build`; do not edit)."""

# fmt: off
GAMES = {'bigbox-britannia-3p': 'bigbox_britannia_3p',
 'bigbox-britannia-45p': 'bigbox_britannia_45p',
 'bigbox-eastern': 'bigbox_eastern',
 'bigbox-hanseatic-3p': 'bigbox_hanseatic_3p',
 'bigbox-hanseatic-3p-favour': 'bigbox_hanseatic_3p_favour',
 'bigbox-hanseatic-3p-missions': 'bigbox_hanseatic_3p_missions',
 'bigbox-hanseatic-45p': 'bigbox_hanseatic_45p',
 'bigbox-hanseatic-45p-favour': 'bigbox_hanseatic_45p_favour',
 'bigbox-hanseatic-45p-missions': 'bigbox_hanseatic_45p_missions',
 'guild-charter-hanseatic-45p': 'guild_charter_hanseatic_45p',
 'harbour-master-hanseatic-45p': 'harbour_master_hanseatic_45p',
 'last-seat-book-hanseatic-45p': 'last_seat_book_hanseatic_45p',
 'no-bullying-hanseatic-45p': 'no_bullying_hanseatic_45p',
 'no-compensation-hanseatic-45p': 'no_compensation_hanseatic_45p',
 'original-hanseatic-23p': 'original_hanseatic_23p',
 'original-hanseatic-2p': 'original_hanseatic_2p',
 'original-hanseatic-45p': 'original_hanseatic_45p',
 'short-hanseatic-45p': 'short_hanseatic_45p',
 'stock-tiebreak-hanseatic-45p': 'stock_tiebreak_hanseatic_45p',
 'three-full-abilities-hanseatic-45p': 'three_full_abilities_hanseatic_45p'}
# fmt: on
