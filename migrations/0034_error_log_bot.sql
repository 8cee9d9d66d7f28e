-- A failed call made with a bot's API key names the bot (the user column stays empty for bots).
ALTER TABLE error_logs ADD COLUMN IF NOT EXISTS bot_id uuid REFERENCES bots (id) ON DELETE SET NULL;
