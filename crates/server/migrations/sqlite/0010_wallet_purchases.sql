-- Fair dealing with the seamless wallet (docs/PROTOCOL.md §10): a round
-- paid at the operator's wallet becomes a purchase (state 'sold', no sale
-- yet); when it is dealt, its prize is queued as the round's credit. The
-- dealer finds a purchase's round by the purchase's idempotency key.
-- A server started without the beacon finds the blocks on sale that the
-- beacon dealt from (it closes them: their next position in sale order may
-- be dealt already). Never edit a migration once released.

CREATE INDEX wallet_rounds_by_key ON wallet_rounds (player_id, idempotency_key);
CREATE INDEX purchases_by_block ON purchases (block);
