/**
 * The JSON Schema validator given to the MCP SDK: `@cfworker/json-schema`,
 * which validates without generating code (no `eval`/`new Function`), so it
 * runs on edge runtimes. Validators are cached per schema object (the SDK's
 * own cfworker provider rebuilds one on every call).
 */
import { Validator } from "@cfworker/json-schema";

/** What the SDK expects from a validator (its `jsonSchemaValidator` interface). */
export interface JsonSchemaValidatorProvider {
  getValidator<T>(
    schema: unknown,
  ): (input: unknown) => { valid: true; data: T; errorMessage: undefined } | {
    valid: false;
    data: undefined;
    errorMessage: string;
  };
}

/** Builds the eval-free validator provider. */
export function createJsonSchemaValidator(): JsonSchemaValidatorProvider {
  const cache = new WeakMap<object, Validator>();
  return {
    getValidator<T>(schema: unknown) {
      const key = schema as object;
      let validator = cache.get(key);
      if (!validator) {
        validator = new Validator(
          schema as ConstructorParameters<typeof Validator>[0],
          "2020-12",
          true,
        );
        cache.set(key, validator);
      }
      const ready = validator;
      return (input: unknown) => {
        const result = ready.validate(input);
        return result.valid
          ? { valid: true as const, data: input as T, errorMessage: undefined }
          : {
            valid: false as const,
            data: undefined,
            errorMessage: result.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; "),
          };
      };
    },
  };
}
