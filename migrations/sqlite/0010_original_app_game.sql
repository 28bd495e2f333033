-- One word for each idea: the game the original web app's routes play is the
-- original app's game, in the code, the API's documentation and here, where it
-- was the shared game.
ALTER TABLE shared_game RENAME TO original_app_game;
