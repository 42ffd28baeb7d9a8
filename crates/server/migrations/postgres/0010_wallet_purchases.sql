-- Fair dealing with the seamless wallet (docs/PROTOCOL.md §10): a round
-- paid at the operator's wallet becomes a purchase (state 'sold', no sale
-- yet); when it is dealt, its prize is queued as the round's credit. The
-- dealer finds a purchase's round by the purchase's idempotency key.
-- Never edit a migration once released.

CREATE INDEX wallet_rounds_by_key ON wallet_rounds (player_id, idempotency_key);
