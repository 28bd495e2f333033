-- A seat is found by its game (the primary key): a game has two, and the token
-- is compared in the server. The index of the seats by token was read by no
-- question, and written at every creation and every join: one page more in each
-- of their commits, about a seventh of a creation's pages.

DROP INDEX seats_by_token;
