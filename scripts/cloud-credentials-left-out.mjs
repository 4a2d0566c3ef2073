// The esbuild plugin of the single-file build that leaves out the clouds' credential libraries (the AWS
// credential chain, google-auth-library and the Vertex package that loads it): with them the one file
// grows by more than half a megabyte, past its budget, for what the npm package and the compiled binary
// carry. Importing one of them in the single file fails with a module that says so; the agent turns that
// into an error naming what to use instead (see src/models/cloud/cloud-model.ts).
const LEFT_OUT = /^(google-auth-library|@ai-sdk\/google-vertex(\/anthropic)?|@aws-sdk\/credential-provider-node)$/;

/** The marker the agent looks for in the import's error. */
export const LEFT_OUT_MARKER = "left out of the single-file build";

export function cloudCredentialsLeftOut() {
  return {
    name: "cloud-credentials-left-out",
    setup(build) {
      build.onResolve({ filter: LEFT_OUT }, (args) => ({ path: args.path, namespace: "left-out" }));
      build.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is ${LEFT_OUT_MARKER}`)});`,
        loader: "js",
      }));
    },
  };
}
