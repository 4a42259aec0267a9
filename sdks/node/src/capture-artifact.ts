// The offline capture artefact `dpdpcca/2` (contract/specs/capture-artifact.md): the canonical string
// an enrolled device signs, and the ECDSA P-256 check of its signature, so a server fronting a fleet
// can pre-check sessions before syncOfflineCaptures (the server verifies again; this is never a
// substitute). The code is the contract's own module, the one the server verifies with, so the two
// cannot drift; scripts/build.mjs copies it into the package. Every case of
// contract/vectors/capture-artifact.json runs in test/vectors.test.ts.
export {
  CAPTURE_ARTIFACT_FORMAT,
  CaptureArtifactError,
  canonicalizeCaptureArtifact,
  verifyCaptureSignature,
} from "../../../contract/src/canonical/capture-artifact.js";
export type {
  CaptureArtifactErrorCode,
  CaptureArtifactSession,
  CaptureChannel,
  CapturePurposeGrant,
  PrincipalHandleKind,
  PurposeGrantStatus,
} from "../../../contract/src/canonical/capture-artifact.js";
