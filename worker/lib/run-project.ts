/**
 * A project as a thread's run is given it (the owner's object reads it, the thread caches it with step
 * 0, the context plugin writes it into the prompt): its instructions, and its files, a text file's text.
 */
export interface RunProject {
  id: string;
  name: string;
  instructions: string;
  /** Text files with their text; images and PDFs with where their bytes are (sent as blocks). */
  files: { id: string; name: string; mediaType: string; bytes: number; text: string | null; r2Key: string }[];
}
