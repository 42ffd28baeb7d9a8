-- The round that dealt each purchase (docs/PROTOCOL.md §10): the one it
-- names, or a later one when its witnesses cosigned it too late for that
-- one. NULL on purchases dealt before this column (their named round) and
-- on those not dealt yet. Never edit a migration once released.
ALTER TABLE purchases ADD COLUMN dealt_round INTEGER;
