/** The product's user-facing strings, in one place (the beta's wording is kept where it had one). */
export const messages = {
  // Sign-up
  emailIncomplete: "Looks like this email is incomplete",
  linkIncomplete: "Looks like this link is incomplete",
  descriptionMinimum: "Minimum 30 characters",
  descriptionMaximum: "Maximum 500 characters",
  passwordMinLength: "At least 8 characters",
  passwordUppercase: "1 uppercase letter",
  passwordLowercase: "1 lowercase letter",
  passwordNumber: "1 number",
  passwordTooLong: "Passwords can be at most 128 characters",
  passwordTooCommon: "This password is one of the most common ones. Choose one that is harder to guess.",
  emailInUse: "Email already in use",
  invalidEmail: "Invalid email",
  signupFailed: "There was an error creating your account",
  signupDraftExpired: "Your sign-up waited too long. Please enter your password again.",

  // Login
  incorrectCredentials: "Incorrect email or password",
  loginFailed: "There was an error logging in",

  // Reset
  resetLinkSent: "Reset link sent successfully.",
  checkSpam: "Be sure to check your spam!",
  resetFailed: "Error sending password reset email",
  resetLinkInvalid: "This reset link is invalid or has expired. Please ask for a new one.",
  resetSaveFailed: "Your new password could not be saved. Please try again.",
  passwordChanged: "Your password has been changed. Please log in.",
  confirmationLinkInvalid: "This confirmation link is invalid or has expired.",
  emailConfirmed: "Thank you: your email address is confirmed.",
  confirmationSent: "We sent you a new confirmation link.",
  confirmEmailBanner: "Please confirm your email address: we sent a link to",
  currentPasswordWrong: "That is not your current password.",
  noPasswordYet: "Your account has no password yet (you sign in with Google or GitHub). Set one with a reset link.",
  passwordUpdated: "Password changed. Your other sessions are signed out.",
  otherSessionsEnded: "Signed out on every other device.",

  // Rate limits (ours: docs/decisions/0056-limit-refusals-say-so.md)
  tooManyAttempts: "Too many attempts. Please wait a while and try again.",
  tooManySearches: "That is a lot of searches in a minute. Please wait a moment and search again.",

  // Site-add form
  invalidUrl: "Invalid Url",
  invalidEmailAddress: "Invalid email address",
  selectCategory: "Please select a category",
  enterDescription: "Please enter a description",
  connectsRange: "Enter a number of connects from 1 to 99",
  addWebsiteFailed: "There was an error adding your website",
  websiteAlreadyAdded: "This website is already in your account",
  // One site per host in an account: a second blog on medium.com is refused with what is true of it.
  siteOnHostAlready: (host: string) => `Your account already has a site on ${host}. An account can have one site per domain.`,
  siteListed: "Your site is listed in the market.",
  siteListedUnverified: "Your site is listed. Other sites see it in the market once it is verified.",

  // Trade
  selectContentType: "Please select a content type.",
  enterContentUrl: "Please enter the content url.",
  contentUrlTooLong: "This content url is too long: at most 2,048 characters.",
  verifyYourWebsite: "Please verify your website.",
  notEnoughConnects: "You do not have enough connects for this trade.",
  offerSent: "Offer sent",
  couldNotSendOffer: "Could not send offer.",
  offerSendFailed: "There was an error sending your offer.",
  duplicateOffer: "You already have a pending offer for this post.",
  priceChanged: (connects: number) => `The price of this post has changed to ${connects} connects. Check it and send again.`,
  offerChangeRefused: "That change is not possible for this offer.",
  offerSaveFailed: "Your change could not be saved. Please try again.",
  senderNoLongerVerified: (host: string) => `${host} is no longer verified, so its offer cannot be accepted until it is verified again.`,
  offerAnswerWindowOver: "This offer waited more than 14 days for an answer and can no longer be accepted.",
  tooManyProposals: "You have sent 20 offers this hour. Please wait a while before sending more.",
  noOffers: "No offers yet, throw your hat in the ring!",
  noTrades: "No trades yet, get the ball rolling by sending an offer!",
  offerUnavailable: "This offer is not available.",
  // Paging of the offers and trades lists (docs/decisions/0026-offers-paging.md)
  pageLinkInvalid: "That page link is not valid, so the list starts from the beginning.",

  // Delivered links (docs/decisions/0015-trade-progress-and-delivery.md)
  linkNotFound: "We could not find a link to {site} on that page.",
  /** One page, one delivery: a page that already delivered a link to this partner in another trade does not count again. */
  pageAlreadyDelivered: "That page already delivered your link to {site} in another trade. Publish a new page for this one.",
  contentElsewhere: "The content page must be on your own site, {site}.",
  tooManyLinkChecks: "That is a lot of page checks in an hour. Please try again later.",

  // Verification and site icons
  tagNotFound: "Could not find your tag",
  checkAgain: "Check again",
  siteVerified: "Your website is verified.",
  tooManyChecks: "You can check at most 10 times an hour. Please try again later.",
  tooManyNewTags: "You can ask for a new tag at most 10 times an hour. Please try again later.",
  redirectedElsewhere: "Your home page sends visitors to another website, so the tag there does not prove this one is yours.",
  verificationTakenOver: "Another account has proved control of this website and holds its verification now.",
  iconUpdated: "Icon updated",
  tooManyIconUpdates: "You can update the icon at most 10 times an hour. Please try again later.",
  // The site keeps the icon it had, or shows the product's when it has none.
  iconNotFound: "We could not find an icon on your home page.",

  // Reading other sites: why a fetch was refused or cut (docs/decisions/0020-safe-fetch.md)
  fetchInvalid: "That is not a web address we can read.",
  fetchScheme: "Only http and https addresses can be read.",
  fetchCredentials: "Addresses with a user name or password cannot be read.",
  fetchPort: "Only addresses on the standard web ports can be read.",
  fetchPrivateNetwork: "That address points to a private network.",
  fetchIpLiteral: "Use the site's name, not an IP address.",
  fetchLocalName: "That address is not a public website.",
  fetchTooManyRedirects: "The site redirected too many times.",
  fetchTimeout: "The site took too long to answer.",
  fetchTooLarge: "The page is larger than 2 MB.",
  fetchNameNotFound: "We could not find a website at that address. Check the spelling.",
  fetchUnreachable: "The site could not be reached.",
  fetchHttpError: "The site answered with an error",

  // Buying connects (docs/decisions/0019-payments-hosted-links-webhook.md)
  chooseBundle: "Choose a bundle of 30, 60 or 100 connects.",
  paymentsOff: "Card payments are not switched on for this installation yet.",
  paymentReceived: "Payment received, connects on their way. This page updates as soon as they arrive.",
  paymentProcessing:
    "Your payment is still being processed. Your connects appear here as soon as Stripe confirms it; a bank payment can take a few days.",
  paymentFailed: "Your payment did not go through, so no connects were added. Choose a bundle to try again.",
  testPurchaseDone: "Test purchase done: the connects are in your balance.",

  // Market and search
  noPosts: "No posts yet. Check back soon.",
  noMatches: "No sites match this search. Try another term.",
  noMatchesFiltered: "No sites match this search. Try fewer filters or another term.",

  // Chat
  chatOpenFailed: "Could not open chat. Please try again.",
  noMessages: "You do not have any messages yet start a chat through offers or trades.",
  tooManyChatOpens: "You have opened a lot of conversations in the last hour. Please wait a while.",
  chatNotFound: "This conversation is not available.",

  // The audit (docs/decisions/0011-authority-score-audit.md)
  auditRunning: "An audit of this site is already running.",
  auditOncePerHour: "You can run the audit once an hour.",
  auditHomeElsewhere: "Your home page sends visitors to another website, so it could not be audited.",
  auditDidNotFinish: "The audit did not finish. Please run it again.",
  auditFailed: "The audit could not be finished. Please try again later.",
  tooManySiteFetches: "Your sites have been checked many times in the last hour. Please try again later.",

  // Misc
  feedbackEmpty: "Feedback is empty.",
  feedbackTooLong: "Feedback can be at most 5000 characters",
  crossSiteRefused: "This form was sent from another site and was refused.",
  oauthFailed: "We could not sign you in with that provider. Please try again.",
  oauthEmailUnverified: "That provider did not confirm your email address. Sign in with your password instead.",

  // Copy
  launchText: "Launching in March 2024",
  contactWithMatches: "We will contact you with matches",
  growthStartsHere: "Growth starts here.",
  searchPlaceholder: "What are you looking for today?",
  verifyBanner: "Verify your website before you can trade.",
} as const;
