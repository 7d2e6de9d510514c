package io.dimstream.config.keys;

import io.dimstream.db.entity.ValidToCurrent;

/**
 * Keys of {@code entities[]} that shape the history table dimstream creates beyond its columns, held
 * apart from {@link ConfigKeys} (which lists them in its {@link ConfigKeys#ENTITY} section) to keep
 * that table of keys readable. Nothing here reads {@link ConfigKeys}' fields while the class
 * initialises but its section's name, a constant.
 */
public final class EntityTableKeys {

    private EntityTableKeys() {
    }

    public static final ConfigKey<ValidToCurrent> VALID_TO_CURRENT = ConfigKey.key(ConfigKeys.ENTITY_SECTION, "valid-to-current")
            .doc("What `valid_to` holds on a key's current (open) version: `null`, or `infinity` (`'infinity'::timestamptz`, as "
                    + "dbt's `dbt_valid_to_current`, Fivetran and dlt allow), so a range join is `valid_from <= t AND t < valid_to`. "
                    + "The table's `is_current`, its indexes and checks, `<table>_current`, `<table>_as_of`, the admin, `dbt-sources` "
                    + "and `check` follow it. An existing table made with the other value is refused at start, saying how to rebuild "
                    + "it (docs/configuration.md, Open versions: NULL or infinity).")
            .of("`null` or `infinity`", ConfigKey.STRING, ValidToCurrent.NULL, "`null`", (path, raw, problems) -> {
                ValidToCurrent v = ValidToCurrent.fromConfig(String.valueOf(raw).trim()).orElse(null);
                if (v == null) {
                    problems.add(path + ": \"" + raw + "\" is neither null nor infinity");
                }
                return v;
            }, ValidToCurrent::configName);

    public static final ConfigKey<Boolean> TRANSACTION_TIME = ConfigKey.key(ConfigKeys.ENTITY_SECTION, "transaction-time")
            .doc("`true`: the table also keeps transaction time, what it said at any past moment (`known_from`, `end_known_from`, the side table `<table>_superseded`, `<table>_as_of(valid_at, known_at)`; docs/semantics.md); `false`: today's table exactly, a rewritten version leaves no trace.")
            .bool(true);
}
