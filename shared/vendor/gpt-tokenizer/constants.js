//#region src/constants.ts
const ALL_SPECIAL_TOKENS = "all";
const DEFAULT_MERGE_CACHE_SIZE = 1e5;
//#endregion
export { ALL_SPECIAL_TOKENS, DEFAULT_MERGE_CACHE_SIZE };

