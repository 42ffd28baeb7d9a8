-- A credit or rollback the operator's wallet answered 409 (its transaction
-- id already used with another body) is never sent again: retrying cannot
-- change that answer. It stays here, with `last_error`, for a person to
-- reconcile (docs/OPERATOR.md, "Reconciliation").
ALTER TABLE wallet_outbox ADD COLUMN given_up_at_ms INTEGER;
