//#region src/specialTokens.ts
const EndOfText = "<|endoftext|>";
const FimPrefix = "<|fim_prefix|>";
const FimMiddle = "<|fim_middle|>";
const FimSuffix = "<|fim_suffix|>";
const ImStart = "<|im_start|>";
const ImEnd = "<|im_end|>";
const ImSep = "<|im_sep|>";
const EndOfPrompt = "<|endofprompt|>";
const HarmonyStartOfText = "<|startoftext|>";
const HarmonyStart = "<|start|>";
const HarmonyEnd = "<|end|>";
const HarmonyMessage = "<|message|>";
const HarmonyChannel = "<|channel|>";
const HarmonyReturn = "<|return|>";
const HarmonyConstrain = "<|constrain|>";
const HarmonyCall = "<|call|>";
//#endregion
export { EndOfPrompt, EndOfText, FimMiddle, FimPrefix, FimSuffix, HarmonyCall, HarmonyChannel, HarmonyConstrain, HarmonyEnd, HarmonyMessage, HarmonyReturn, HarmonyStart, HarmonyStartOfText, ImEnd, ImSep, ImStart };

