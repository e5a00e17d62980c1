/** The sign-up modal's steps and what its form post answers (shared by the route, its server neighbour and its components). */
import type { FieldErrors } from "./validation";

/** 0: email and password; 1: website url and description; 2: 'See You Soon'. */
export type SignupStep = 0 | 1 | 2;

export interface SignupValues {
  email: string;
  password: string;
  url: string;
  description: string;
}

export interface SignupAnswer {
  step: SignupStep;
  values: SignupValues;
  errors: FieldErrors;
  formError?: string;
  /** Without JavaScript, step 1 carries this token of the server-side draft of step 0, never the password. */
  draft?: string;
}

/** What the user reads as the names of the account fields, for "Still to fill in". */
