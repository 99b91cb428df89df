# Hooks of the schemathesis runs of scripts/fuzz.mjs (loaded through SCHEMATHESIS_HOOKS).
import schemathesis


def _has_proto_key(value):
    if isinstance(value, dict):
        return any(key == "__proto__" or _has_proto_key(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_proto_key(item) for item in value)
    return False


@schemathesis.hook
def filter_body(context, body):
    """No generated body with a `__proto__` key, at any depth.

    The gateway refuses such a JSON body with 400 `bad_request` before reading it (prototype
    pollution; the API document's description says so, test/e2e/errors.test.ts asserts it).
    JSON Schema cannot say "any key but __proto__" at every depth without doubling the document,
    so the generator is told here instead: otherwise every body with free-form keys is a false
    "schema-valid request rejected".
    """
    return not _has_proto_key(body)
