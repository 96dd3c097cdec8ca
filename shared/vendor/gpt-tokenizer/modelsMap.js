import { __exportAll } from "./_virtual/_rolldown/runtime.js";
//#region src/modelsMap.ts
var modelsMap_exports = /* @__PURE__ */ __exportAll({
	cl100k_base: () => cl100k_base,
	gpt2: () => gpt2,
	o200k_base: () => o200k_base,
	o200k_harmony: () => o200k_harmony,
	p50k_base: () => p50k_base,
	p50k_edit: () => p50k_edit,
	r50k_base: () => r50k_base
});
const gpt2 = ["gpt2", "gpt-2"];
const p50k_base = [
	"text-davinci-002",
	"text-davinci-003",
	"code-davinci-001",
	"code-davinci-002",
	"davinci-codex",
	"code-cushman-001",
	"code-cushman-002",
	"cushman-codex"
];
const r50k_base = [
	"text-ada-001",
	"text-babbage-001",
	"text-curie-001",
	"text-davinci-001",
	"ada",
	"babbage",
	"curie",
	"davinci",
	"code-search-ada-code-001",
	"code-search-ada-text-001",
	"text-similarity-ada-001",
	"text-search-ada-doc-001",
	"text-search-ada-query-001",
	"text-similarity-babbage-001",
	"text-search-babbage-doc-001",
	"text-search-babbage-query-001",
	"code-search-babbage-code-001",
	"code-search-babbage-text-001",
	"text-similarity-curie-001",
	"text-search-curie-doc-001",
	"text-search-curie-query-001",
	"text-similarity-davinci-001",
	"text-search-davinci-doc-001",
	"text-search-davinci-query-001"
];
const p50k_edit = ["code-davinci-edit-001", "text-davinci-edit-001"];
const cl100k_base = [
	"gpt-3.5",
	"gpt-3.5-0301",
	"gpt-3.5-turbo",
	"gpt-3.5-turbo-0125",
	"gpt-3.5-turbo-0613",
	"gpt-3.5-turbo-1106",
	"gpt-3.5-turbo-16k-0613",
	"gpt-3.5-turbo-instruct",
	"gpt-4",
	"gpt-4-0125-preview",
	"gpt-4-0314",
	"gpt-4-0613",
	"gpt-4-1106-preview",
	"gpt-4-1106-vision-preview",
	"gpt-4-32k",
	"gpt-4-turbo",
	"gpt-4-turbo-2024-04-09",
	"gpt-4-turbo-preview",
	"text-embedding-3-large",
	"text-embedding-3-small",
	"text-embedding-ada-002",
	"babbage-002",
	"davinci-002"
];
const o200k_base = [];
const o200k_harmony = ["gpt-oss-20b", "gpt-oss-120b"];
//#endregion
export { cl100k_base, gpt2, modelsMap_exports, o200k_base, o200k_harmony, p50k_base, p50k_edit, r50k_base };

