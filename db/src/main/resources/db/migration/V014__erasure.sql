-- Erasure of a key (dimstream erase, the admin's erase form): the key's rows are deleted from every
-- place dimstream keeps them, in one transaction audited in admin_audit (action 'erase': who, when,
-- the entity, rows removed per place; never the key). With a tombstone (the default) the key is kept
-- here only as a hash, so the writer drops its events if a replay or a re-delivery brings them again
-- (io.dimstream.db.erase.ErasedKeys).
--
-- key_hash: SHA-256 over the canonical texts of the key columns in key order, each length-prefixed,
-- as record_hash encodes tracked values (DESIGN section 3). No text of the key is stored.
CREATE TABLE erased_keys (
    entity    text NOT NULL,
    key_hash  bytea NOT NULL,
    erased_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (entity, key_hash)
);
