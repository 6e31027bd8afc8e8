/// The schema, as numbered steps applied in order at start; each runs once, in its own
/// transaction, recorded in `schema_migrations`. Plain SQL that PostgreSQL also accepts
/// (BLOB becomes BYTEA there). Never edit a released step: add one.
public enum Migrations {
    /// Version and SQL of each step.
    public static let steps: [(version: Int, sql: String)] = [
        (1, """
        CREATE TABLE tenants (
            id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at_ms BIGINT NOT NULL,
            webhook_url TEXT, webhook_secret TEXT);
        CREATE TABLE api_keys (
            key_hash TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), created_at_ms BIGINT NOT NULL);
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), token_hash TEXT NOT NULL UNIQUE,
            status TEXT NOT NULL, policy TEXT NOT NULL, ssid TEXT, external_ref TEXT, locale TEXT, theme TEXT,
            created_at_ms BIGINT NOT NULL, expires_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL,
            engine_state BLOB, result BLOB, signed_result TEXT, version BIGINT NOT NULL);
        CREATE INDEX sessions_tenant ON sessions(tenant_id, created_at_ms);
        CREATE INDEX sessions_open ON sessions(status, expires_at_ms);
        CREATE INDEX sessions_ssid ON sessions(tenant_id, ssid, updated_at_ms);
        CREATE TABLE signing_keys (
            kid TEXT PRIMARY KEY, seed BLOB NOT NULL, public_key BLOB NOT NULL,
            created_at_ms BIGINT NOT NULL, retired_at_ms BIGINT);
        CREATE TABLE idempotency_keys (
            tenant_id TEXT NOT NULL REFERENCES tenants(id), key TEXT NOT NULL, request_hash TEXT NOT NULL,
            status INTEGER NOT NULL, body BLOB NOT NULL, created_at_ms BIGINT NOT NULL, PRIMARY KEY (tenant_id, key));
        CREATE TABLE webhook_outbox (
            id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), session_id TEXT NOT NULL,
            event TEXT NOT NULL, payload BLOB NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,
            next_attempt_at_ms BIGINT NOT NULL, last_error TEXT, created_at_ms BIGINT NOT NULL);
        CREATE INDEX webhook_due ON webhook_outbox(state, next_attempt_at_ms);
        CREATE TABLE audit_images (
            session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE, jpeg BLOB NOT NULL,
            delete_after_ms BIGINT NOT NULL);
        CREATE INDEX audit_images_deadline ON audit_images(delete_after_ms);
        """),
        (2, """
        ALTER TABLE sessions ADD COLUMN outcome TEXT;
        ALTER TABLE sessions ADD COLUMN risk TEXT;
        ALTER TABLE sessions ADD COLUMN redirect_url TEXT;
        ALTER TABLE tenants ADD COLUMN branding BLOB;
        CREATE TABLE reference_faces (
            session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE, descriptor BLOB NOT NULL,
            delete_after_ms BIGINT NOT NULL);
        CREATE INDEX reference_faces_deadline ON reference_faces(delete_after_ms);
        CREATE TABLE frame_hashes (
            hash BIGINT NOT NULL, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            delete_after_ms BIGINT NOT NULL, PRIMARY KEY (hash, session_id));
        CREATE INDEX frame_hashes_session ON frame_hashes(session_id);
        CREATE INDEX frame_hashes_deadline ON frame_hashes(delete_after_ms);
        """),
        (3, """
        ALTER TABLE signing_keys ADD COLUMN revoked_at_ms BIGINT;
        """),
        // Stored answers held raw session tokens; they are sealed from now on.
        (4, """
        DELETE FROM idempotency_keys;
        """),
        // Nodes sharing a database claim a delivery before sending it (until the lease runs out).
        (5, """
        ALTER TABLE webhook_outbox ADD COLUMN claimed_until_ms BIGINT NOT NULL DEFAULT 0;
        """),
        // The document step: what was read, in the session; the photo and its portrait, as personal data.
        (6, """
        ALTER TABLE sessions ADD COLUMN document TEXT;
        CREATE TABLE document_images (
            session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE, jpeg BLOB NOT NULL, portrait BLOB,
            delete_after_ms BIGINT NOT NULL);
        CREATE INDEX document_images_deadline ON document_images(delete_after_ms);
        """),
        // When a session's personal data was erased (by DELETE or the retention purge); until
        // then, the purge finds the ended sessions that still hold it.
        (7, """
        ALTER TABLE sessions ADD COLUMN erased_at_ms BIGINT;
        CREATE INDEX sessions_unerased ON sessions(updated_at_ms) WHERE erased_at_ms IS NULL;
        """),
        // API keys get an id and a prefix to be named by, and can be revoked. Keys made before
        // have no prefix (only their hash was kept).
        (8, """
        ALTER TABLE api_keys ADD COLUMN id TEXT;
        ALTER TABLE api_keys ADD COLUMN prefix TEXT;
        ALTER TABLE api_keys ADD COLUMN revoked_at_ms BIGINT;
        UPDATE api_keys SET id = 'ak_' || substr(key_hash, 1, 16);
        CREATE UNIQUE INDEX api_keys_id ON api_keys(id);
        CREATE INDEX api_keys_tenant ON api_keys(tenant_id);
        """),
        // Each session's key for what its row holds of a person (`SessionSealing`), until erased.
        (9, """
        CREATE TABLE session_keys (
            sealed_session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE, sealing_key BLOB NOT NULL);
        """),
    ]

    /// The newest version.
    public static var latest: Int { steps.map(\.version).max() ?? 0 }
}
